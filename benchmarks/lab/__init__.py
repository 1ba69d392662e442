"""Study tools: one-off measurements behind docs/performance.md, kept to
re-read their records, not part of the suite users run (benchmarks/README.md).

python -m benchmarks.lab.bar_noise FILE.jsonl ...   (how often issue #18's quality bar turns away a peer)
python -m benchmarks.lab.kernels [--dim 100] [--seconds 3]   (kernel micro-benchmarks on synthetic data)"""
