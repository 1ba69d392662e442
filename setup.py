"""Build the C core (csrc/) and its thin Cython bindings (wv_engine/_*.pyx)."""

import os
import sys

from Cython.Build import cythonize
from setuptools import Extension, setup

# Portable by default: -O3, warnings on, no -march=native, no -ffast-math.
# The hot loops are multiversioned for AVX2/FMA at run time (csrc/vecmath.h).
# -ffp-contract=fast: a * b + c is one fused multiply-add where the target
# has it (-std=c11 alone turns contraction off, and the FMA clones then ran
# a multiply and an add for each).
CFLAGS = ["-std=c11", "-O3", "-Wall", "-Wextra", "-fopenmp-simd", "-fno-math-errno", "-ffp-contract=fast"]
LDFLAGS = ["-pthread"]
if os.environ.get("WV_ENGINE_SANITIZE"):  # opt-in ASan/UBSan build of the C core
    # One clone of each multiversioned loop (vecmath.h): the clones are one C
    # source, and instrumenting both doubled the build's longest files.
    CFLAGS += ["-O1", "-g1", "-fno-omit-frame-pointer", "-fsanitize=address,undefined", "-DWV_NO_MULTIVERSION"]
    LDFLAGS += ["-fsanitize=address,undefined"]
if sys.platform == "win32":
    CFLAGS, LDFLAGS = ["/O2"], []


def extension(name, sources):
    return Extension(
        f"wv_engine.{name}",
        sources=[f"wv_engine/{name}.pyx"] + [f"csrc/{s}" for s in sources],
        include_dirs=["csrc"],
        extra_compile_args=CFLAGS,
        extra_link_args=LDFLAGS,
    )


setup(
    ext_modules=cythonize(
        [
            extension("_tokenize", ["tokenize.c", "strtab.c", "vocab.c", "hugepages.c", "phrases.c"]),
            extension("_word2vec", ["w2v.c", "w2v_loss.c", "w2v_epoch.c", "loss_ns.c", "loss_ns_window.c",
                                    "loss_hs.c", "loss_softmax.c", "loss_ns_subword.c",
                                    "loss_hs_subword.c", "loss_softmax_subword.c", "hotrows.c", "alias.c", "huffman.c",
                                    "parallel.c"]),
            extension("_subwords", ["subwords.c", "row_order.c", "parallel.c"]),
            extension("_doc2vec", ["d2v_train.c", "d2v_infer.c", "w2v.c", "hotrows.c", "parallel.c"]),
            extension("_glove", ["cooccur.c", "extsort.c", "cooc_csr.c", "glove.c", "glove_blocks.c", "glove_grid.c",
                                  "parallel.c", "hugepages.c"]),
            extension("_formats", []),
            extension("_vectors", ["vecfile.c", "wordtable.c", "strtab.c", "hugepages.c", "topk.c", "parallel.c"]),
            extension("_evaluate", ["analogy.c", "parallel.c"]),
        ],
        compiler_directives={"language_level": "3"},
    ),
    # The extensions compiled side by side, also under pip (Doc2Vec's alone
    # takes as long as all the others together).
    options={"build_ext": {"parallel": os.cpu_count() or 1}},
)
