"""Random bytes, randomly chunked, through the C word counter and encoder."""

import sys

import atheris

with atheris.instrument_imports():
    from wv_engine import _tokenize


def test_one(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    max_size = fdp.ConsumeIntInRange(0, 8)
    cut = fdp.ConsumeIntInRange(1, 64)
    text = fdp.ConsumeBytes(fdp.remaining_bytes())
    counter = _tokenize.WordCounter(max_size)
    for i in range(0, len(text), cut):
        counter.feed(text[i:i + cut])
    counter.feed(b"", final=True)
    words, counts = counter.sorted_words(1)
    if max_size == 0:
        expected = text.split()
        assert counter.tokens == len([w for w in expected if w]), (counter.tokens, len(expected))
        assert int(counts.sum()) == counter.tokens
    assert all(w and not any(c in w for c in b" \t\n\r\v\f") for w in words)
    encoder = _tokenize.Encoder(words)
    ids = encoder.encode(text, final=True)
    assert ids.size == 0 or (ids.min() >= -1 and ids.max() < len(words))


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one)
    atheris.Fuzz()
