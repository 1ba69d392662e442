"""Benchmark suite for wv_engine: speed, memory and quality against gensim,
the word2vec C tool and fastText (word2vec), gensim and fastText (subword
vectors), and Stanford GloVe (GloVe), on the same corpus and settings.

python -m benchmarks --corpus PATH [--quick] ...   (see benchmarks/README.md)
python -m benchmarks.memory_probe   (how fast caches and memory answer now; read around every run)
python -m benchmarks.ab, .instructions, .schedule_study   (two builds, instructions per epoch, quality bars)
python -m benchmarks.thread_scaling, .glove_scaling, .cpu_probe, .many_cores, .cluster,
    .plot_scaling, .readme_table   (scaling, many cores, cluster, the README's table)
python -m benchmarks.scale [--mode word2vec|glove], .zipf, .repeat_text   (one large corpus)
python -m benchmarks.gensim_tutorial   (gensim's tutorial with gensim and wv_engine.gensim)
python -m benchmarks.absent_words make|score   (pairs with a word absent from training)
Study tools, not the suite: benchmarks/lab/ (bar_noise, kernels)."""
