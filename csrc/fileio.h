/* Whole reads and writes at a file offset (pread/pwrite: no shared file
 * position, so threads can use one file at different places), and the
 * encoded corpus read through them. The file's user defines
 * _POSIX_C_SOURCE 200809L before any include. */
#ifndef WV_FILEIO_H
#define WV_FILEIO_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <unistd.h>

#include "status.h"

/* Reads n bytes at `at`: 0, or the errno (EIO when the file ends first). */
static inline int wv_pread_all(int fd, void *buf, size_t n, off_t at) {
    char *p = buf;
    while (n) {
        ssize_t got = pread(fd, p, n, at);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return got < 0 ? errno : EIO;
        p += got;
        n -= (size_t)got;
        at += got;
    }
    return 0;
}

/* Writes n bytes at `at`: 0, or the errno (ENOSPC when nothing is written). */
static inline int wv_pwrite_all(int fd, const void *buf, size_t n, off_t at) {
    const char *p = buf;
    while (n) {
        ssize_t put = pwrite(fd, p, n, at);
        if (put < 0 && errno == EINTR) continue;
        if (put <= 0) return put < 0 ? errno : ENOSPC;
        p += put;
        n -= (size_t)put;
        at += put;
    }
    return 0;
}

/* Ids [from, to) of an encoded corpus file (int32, native order), each
 * checked to be a word below vocab_size or -1 (a sentence end): the file is
 * outside the process and may be damaged. WV_ERR_IO, WV_ERR_INVALID. */
static inline wv_status wv_read_ids(int fd, int32_t *buf, int64_t from, int64_t to, int32_t vocab_size) {
    if (wv_pread_all(fd, buf, (size_t)(to - from) * sizeof *buf, (off_t)from * (off_t)sizeof *buf)) return WV_ERR_IO;
    for (int64_t i = 0; i < to - from; i++)
        if (buf[i] < -1 || buf[i] >= vocab_size) return WV_ERR_INVALID;
    return WV_OK;
}

#endif
