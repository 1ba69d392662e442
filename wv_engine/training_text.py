"""A corpus on its way to a trainer, in one pass: reader -> counter ->
vocabulary -> encoder. The text is resolved once (corpus.Corpus), counted
(keeping each token's provisional id in the same pass where that pays: a
plain file counted on several threads without pruning, whose ids will stay
in memory), and encoded once per vocabulary; the ids are reused while the
file is unchanged. Word2Vec and GloVe hold one and ask the corpus nothing
themselves."""

from __future__ import annotations

from typing import Any

from .corpus import Corpus, CorpusSource, EncodedCorpus, encode, ids_belong_on_disk, ids_memory_room
from .files import check_directory
from .vocab import Vocabulary
from .wordcount import CountedIds, count_with_ids


class TrainingText:
    """The corpus of a model: `threads` count and encode it; its ids go to
    disk when `ids_on_disk` says so (None: when they would not fit in
    memory, corpus.ids_belong_on_disk), in `tmp_dir`."""

    def __init__(self, corpus: CorpusSource | Corpus, *, threads: int, ids_on_disk: bool | None = None,
                 tmp_dir: str | None = None) -> None:
        self.tmp_dir = check_directory(tmp_dir)  # before the corpus is read, not when its ids are written
        self.corpus = Corpus.of(corpus)
        self.threads, self.ids_on_disk = threads, ids_on_disk
        self._counted: tuple[CountedIds, dict | None] | None = None  # the count's ids and the file then
        self._encoded: EncodedCorpus | None = None
        self._vocab: Vocabulary | None = None  # what _encoded was encoded for

    @property
    def source(self) -> CorpusSource:
        return self.corpus.source

    def is_for(self, source: Any) -> bool:
        """Whether `source` is this text (the same object or file name)."""
        return source is self or self.corpus.is_for(source)

    def count(self, min_count: int, max_vocab_size: int | None = None, max_final_vocab: int | None = None, *,
              progress: bool | None = None) -> Vocabulary:
        """The vocabulary of the text, counted here (Vocabulary.build's
        limits; a cluster's workers read the corpus as given instead)."""
        room = self._one_pass_room(max_vocab_size)
        if room is None:
            return Vocabulary.build(self.corpus, min_count, max_vocab_size, max_final_vocab, threads=self.threads,
                                    progress=progress)
        before = self.corpus.fingerprint()  # taken first: a change while counting shows
        counter, counted = count_with_ids(self.corpus, self.threads, room, progress)
        vocab = Vocabulary.from_counter(counter, self.corpus, min_count, None, max_final_vocab)
        if counted is not None:
            self._counted = (counted, before)
        return vocab

    def _one_pass_room(self, max_vocab_size: int | None) -> int | None:
        """The memory counting may give the ids it keeps, when it should
        keep them (a plain file counted on several threads, without pruning,
        ids not sent to disk and likely to fit); None otherwise."""
        if not (self.corpus.splittable and self.threads > 1 and max_vocab_size is None
                and self.ids_on_disk is not True):
            return None
        room = ids_memory_room()
        return room if self.corpus.likely_ids_bytes <= room else None

    def adopt(self, vocab: Vocabulary) -> None:
        """Takes `vocab` as final: the ids the count kept become the encoded
        corpus now (so that the count's tables are freed before the model's
        weights are allocated), unless they belong on disk."""
        counted, self._counted = self._counted, None
        if counted is None or self._on_disk(vocab):
            return
        ids, before = counted
        encoded = ids.encode(vocab.words_joined())
        encoded.source = before
        self._encoded, self._vocab = encoded, vocab

    def _on_disk(self, vocab: Vocabulary) -> bool:
        return self.ids_on_disk if self.ids_on_disk is not None else ids_belong_on_disk(vocab.train_words)

    def encoded(self, vocab: Vocabulary, *, cache_path: str | None = None,
                progress: bool | None = None) -> EncodedCorpus:
        """The text as ids over `vocab`: the ones made before for it while
        the file is unchanged, else encoded now (into cache_path when given,
        memory-mapped from it)."""
        known = self._encoded
        if (known is not None and cache_path is None and self._vocab is vocab
                and (self.corpus.path is None or known.source == self.corpus.fingerprint())):
            return known
        encoded = encode(self.corpus, vocab.words_joined(), cache_path, threads=self.threads,
                         on_disk=self._on_disk(vocab), tmp_dir=self.tmp_dir, progress=progress)
        if cache_path is None:
            self._encoded, self._vocab = encoded, vocab
        return encoded
