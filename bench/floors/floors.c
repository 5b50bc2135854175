/*
 * Raw floors for bench/compare: what the kernel and the hardware cost with no fabric library on top.
 *
 *   floors sock <size> <iterations>   busy-polling TCP round trips over 127.0.0.1 (TCP_NODELAY, non-blocking
 *                                     recv/send retried until done), two processes: fi_pingpong polls its CQ
 *                                     without sleeping, so this is the floor it and jfabric are held to
 *   floors sock-blocking <size> <iterations>   the same with blocking read/write (sleeps in the kernel)
 *   floors shm <iterations>           a cache-line ping-pong between two processes over shared memory
 *   floors shm2 <iterations>          the same with one line per direction (each side writes only its own line
 *                                     and reads only the other's), as a ring per direction needs: the floor a
 *                                     shared-memory transport with a queue each way is held to
 *
 * Prints one line "usec_per_xfer=<one-way microseconds> mb_per_sec=<MB/s>", in fi_pingpong's units
 * (one-way time is the round trip / 2; MB/s counts both directions, 10^6 bytes).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int spin = 1;

static int full_io(int fd, char *buf, size_t len, int writing) {
    size_t done = 0;
    int flags = spin ? MSG_DONTWAIT | MSG_NOSIGNAL : MSG_NOSIGNAL;
    while (done < len) {
        ssize_t n = writing ? send(fd, buf + done, len - done, flags) : recv(fd, buf + done, len - done, flags);
        if (n < 0 && spin && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            continue;
        }
        if (n <= 0) {
            return -1;
        }
        done += (size_t) n;
    }
    return 0;
}

static int sock_floor(size_t size, long iters) {
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK), .sin_port = 0};
    socklen_t alen = sizeof a;
    if (lfd < 0 || bind(lfd, (struct sockaddr *) &a, sizeof a) || listen(lfd, 1) ||
        getsockname(lfd, (struct sockaddr *) &a, &alen)) {
        perror("floors: listen on 127.0.0.1");
        return 1;
    }
    char *buf = malloc(size ? size : 1);
    memset(buf, 'x', size);
    int one = 1;
    pid_t child = fork();
    if (child == 0) { /* echo side */
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (connect(fd, (struct sockaddr *) &a, sizeof a)) {
            _exit(1);
        }
        for (long i = 0; i < iters + 1; i++) {
            if (full_io(fd, buf, size, 0) || full_io(fd, buf, size, 1)) {
                _exit(1);
            }
        }
        _exit(0);
    }
    int fd = accept(lfd, NULL, NULL);
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    /* one untimed round trip so the connection is warm */
    if (full_io(fd, buf, size, 1) || full_io(fd, buf, size, 0)) {
        fprintf(stderr, "floors: socket round trip failed\n");
        return 1;
    }
    double t0 = now_us();
    for (long i = 0; i < iters; i++) {
        if (full_io(fd, buf, size, 1) || full_io(fd, buf, size, 0)) {
            fprintf(stderr, "floors: socket round trip failed\n");
            return 1;
        }
    }
    double us = now_us() - t0;
    int status;
    waitpid(child, &status, 0);
    printf("usec_per_xfer=%.3f mb_per_sec=%.2f\n", us / iters / 2, (double) size * iters * 2 / us);
    return 0;
}

/* waits for the echoing child and prints one cache line's round trips since t0, in fi_pingpong's units */
static int report_line(pid_t child, double t0, long iters) {
    double us = now_us() - t0;
    int status;
    waitpid(child, &status, 0);
    printf("usec_per_xfer=%.3f mb_per_sec=%.2f\n", us / iters / 2, 64.0 * iters * 2 / us);
    return 0;
}

static int shm_floor(long iters) {
    /* two processes, one shared 64-byte line: the parent writes odd values, the child answers with even ones */
    _Atomic long *line = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (line == MAP_FAILED) {
        perror("floors: mmap");
        return 1;
    }
    atomic_store(line, 0);
    pid_t child = fork();
    if (child == 0) {
        for (long i = 0; i < iters + 1000; i++) {
            long want = 2 * i + 1;
            while (atomic_load_explicit(line, memory_order_acquire) != want) {
                __builtin_ia32_pause();
            }
            atomic_store_explicit(line, want + 1, memory_order_release);
        }
        _exit(0);
    }
    double t0 = 0;
    for (long i = 0; i < iters + 1000; i++) {
        if (i == 1000) { /* the first thousand are warm-up */
            t0 = now_us();
        }
        atomic_store_explicit(line, 2 * i + 1, memory_order_release);
        while (atomic_load_explicit(line, memory_order_acquire) != 2 * i + 2) {
            __builtin_ia32_pause();
        }
    }
    return report_line(child, t0, iters);
}

static int shm2_floor(long iters) {
    /* ping on one line, pong on another, 128 bytes apart so the adjacent-line prefetcher does not pair them */
    char *base = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) {
        perror("floors: mmap");
        return 1;
    }
    _Atomic long *ping = (_Atomic long *) base;
    _Atomic long *pong = (_Atomic long *) (base + 128);
    atomic_store(ping, 0);
    atomic_store(pong, 0);
    pid_t child = fork();
    if (child == 0) {
        for (long i = 1; i <= iters + 1000; i++) {
            while (atomic_load_explicit(ping, memory_order_acquire) != i) {
                __builtin_ia32_pause();
            }
            atomic_store_explicit(pong, i, memory_order_release);
        }
        _exit(0);
    }
    double t0 = 0;
    for (long i = 1; i <= iters + 1000; i++) {
        if (i == 1001) { /* the first thousand are warm-up */
            t0 = now_us();
        }
        atomic_store_explicit(ping, i, memory_order_release);
        while (atomic_load_explicit(pong, memory_order_acquire) != i) {
            __builtin_ia32_pause();
        }
    }
    return report_line(child, t0, iters);
}

int main(int argc, char **argv) {
    if (argc == 4 && (strcmp(argv[1], "sock") == 0 || strcmp(argv[1], "sock-blocking") == 0)) {
        spin = strcmp(argv[1], "sock") == 0;
        return sock_floor((size_t) atol(argv[2]), atol(argv[3]));
    }
    if (argc == 3 && strcmp(argv[1], "shm") == 0) {
        return shm_floor(atol(argv[2]));
    }
    if (argc == 3 && strcmp(argv[1], "shm2") == 0) {
        return shm2_floor(atol(argv[2]));
    }
    fprintf(stderr, "usage: floors sock|sock-blocking <size> <iterations> | floors shm|shm2 <iterations>\n");
    return 2;
}
