/*
 * largecount_check.c — the MPI-4 large-count collectives (MPI_Count counts) compared with MPI's
 * own result. Built by scripts/build-mpi only for an MPI library that has them (MPICH 4).
 *
 * Plain MPI, as offload_check.c: each case calls the MPI_*_c function (offloaded when the
 * collwire PMPI library is preloaded) and the PMPI_*_c function (always MPI's own
 * implementation) on the same, distinct per-rank data, and compares the results byte for byte.
 * Floating-point data are small multiples of powers of two, so every summation order gives the
 * same bits.
 *
 * Cases: MPI_Allreduce_c (double SUM on MPI_COMM_WORLD, double MAX of 1000 elements (more
 * than one segment) on a duplicate, int BXOR in place), MPI_Reduce_c (long SUM to root 2, or the
 * last rank when there are fewer, and long MIN in place at the root), MPI_Scan_c (int SUM),
 * MPI_Iallreduce_c / MPI_Ireduce_c / MPI_Iscan_c each completed by MPI_Wait. Then calls the
 * library forwards to MPI: MPI_Allreduce_c with MPI_PROD (twice, same arguments), and, when
 * argv[1] gives a count, MPI_Allreduce_c and MPI_Iallreduce_c (+ MPI_Wait) of that many MPI_INT
 * with MPI_SUM (the test passes a count the boards cannot carry).
 *
 * Prints one line per case ("ok"/"MISMATCH") on rank 0, then
 *   largecount_check: cases=C mismatches=M offloaded=K
 * where K is rank 0's offloaded-call count (looked up with dlsym; -1 when the collwire library
 * is not loaded). Exits non-zero on any mismatch.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, cases, failures;

static void report(const char *name, const void *got, const void *want, size_t bytes) {
    int bad = memcmp(got, want, bytes) != 0, any = 0;
    PMPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%-48s %s\n", name, any ? "MISMATCH" : "ok");
    cases++;
    failures += any;
}

#define N 1000

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    int root = size > 2 ? 2 : size - 1;

    static double d_in[N], d_got[N], d_want[N];
    static int i_in[N], i_got[N], i_want[N];
    static long l_in[N], l_got[N], l_want[N];
    for (int i = 0; i < N; i++) {
        d_in[i] = (double)((rank * 7 + i * 13) % 101 - 50) * 0.125 + (double)(1 << (i % 20));
        i_in[i] = (rank + 1) * 1000003 - i * 7919;
        l_in[i] = ((long)rank - 2) * 4000000000L + i * 3;
    }

    /* MPI_Allreduce_c */
    memset(d_got, 0, sizeof d_got);
    memset(d_want, 0, sizeof d_want);
    MPI_Allreduce_c(d_in, d_got, 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    PMPI_Allreduce_c(d_in, d_want, 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    report("MPI_Allreduce_c double sum 8 (world)", d_got, d_want, sizeof d_got);
    memset(d_got, 0, sizeof d_got);
    MPI_Allreduce_c(d_in, d_got, N, MPI_DOUBLE, MPI_MAX, dup);
    PMPI_Allreduce_c(d_in, d_want, N, MPI_DOUBLE, MPI_MAX, dup);
    report("MPI_Allreduce_c double max 1000 (dup)", d_got, d_want, sizeof d_got);
    memcpy(i_got, i_in, sizeof i_in);
    MPI_Allreduce_c(MPI_IN_PLACE, i_got, 5, MPI_INT, MPI_BXOR, dup);
    PMPI_Allreduce_c(i_in, i_want, 5, MPI_INT, MPI_BXOR, dup);
    report("MPI_Allreduce_c int bxor 5 in place", i_got, i_want, 5 * sizeof(int));

    /* MPI_Reduce_c: to the root, then in place at the root. */
    memset(l_got, 0, sizeof l_got);
    memset(l_want, 0, sizeof l_want);
    MPI_Reduce_c(l_in, l_got, 6, MPI_LONG, MPI_SUM, root, dup);
    PMPI_Reduce_c(l_in, l_want, 6, MPI_LONG, MPI_SUM, root, dup);
    report("MPI_Reduce_c long sum 6 root 2", l_got, l_want, sizeof l_got);
    memcpy(l_got, l_in, sizeof l_in);
    MPI_Reduce_c(rank == root ? MPI_IN_PLACE : l_got, rank == root ? l_got : NULL, 7, MPI_LONG,
                 MPI_MIN, root, dup);
    PMPI_Reduce_c(l_in, l_want, 7, MPI_LONG, MPI_MIN, root, dup);
    report("MPI_Reduce_c long min 7 root 2 in place", l_got, l_want,
           rank == root ? 7 * sizeof(long) : 0);

    /* MPI_Scan_c */
    memset(i_got, 0, sizeof i_got);
    memset(i_want, 0, sizeof i_want);
    MPI_Scan_c(i_in, i_got, 10, MPI_INT, MPI_SUM, dup);
    PMPI_Scan_c(i_in, i_want, 10, MPI_INT, MPI_SUM, dup);
    report("MPI_Scan_c int sum 10", i_got, i_want, sizeof i_got);

    /* Non-blocking forms, each completed by MPI_Wait. */
    MPI_Request req;
    memset(d_got, 0, sizeof d_got);
    MPI_Iallreduce_c(d_in, d_got, 3, MPI_DOUBLE, MPI_SUM, dup, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    PMPI_Allreduce_c(d_in, d_want, 3, MPI_DOUBLE, MPI_SUM, dup);
    report("MPI_Iallreduce_c double sum 3 + MPI_Wait", d_got, d_want, 3 * sizeof(double));
    memset(l_got, 0, sizeof l_got);
    MPI_Ireduce_c(l_in, l_got, 4, MPI_LONG, MPI_MAX, root, dup, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    PMPI_Reduce_c(l_in, l_want, 4, MPI_LONG, MPI_MAX, root, dup);
    report("MPI_Ireduce_c long max 4 root 2 + MPI_Wait", l_got, l_want,
           rank == root ? 4 * sizeof(long) : 0);
    memset(i_got, 0, sizeof i_got);
    MPI_Iscan_c(i_in, i_got, 12, MPI_INT, MPI_BOR, dup, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    PMPI_Scan_c(i_in, i_want, 12, MPI_INT, MPI_BOR, dup);
    report("MPI_Iscan_c int bor 12 + MPI_Wait", i_got, i_want, 12 * sizeof(int));

    /* Forwarded to MPI: an op collwire does not implement (products of small integers and
     * halves, exact in any order); the same call twice. */
    double p_in[3] = {(double)(rank + 1), 0.5 * (rank + 1), 0.25}, p_got[3], p_want[3];
    PMPI_Allreduce_c(p_in, p_want, 3, MPI_DOUBLE, MPI_PROD, dup);
    for (int k = 0; k < 2; k++) {
        memset(p_got, 0, sizeof p_got);
        MPI_Allreduce_c(p_in, p_got, 3, MPI_DOUBLE, MPI_PROD, dup);
        report("MPI_Allreduce_c double prod 3 (forwarded)", p_got, p_want, sizeof p_got);
    }

    /* Forwarded to MPI when the boards cannot run the count: blocking and non-blocking. */
    MPI_Count big = argc > 1 ? (MPI_Count)strtoll(argv[1], NULL, 10) : 0;
    if (big > 0) {
        size_t n = (size_t)big;
        int *in = malloc(n * sizeof *in), *got = malloc(n * sizeof *got),
            *want = malloc(n * sizeof *want);
        if (!in || !got || !want) {
            fprintf(stderr, "largecount_check: out of memory for %zu ints\n", n);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        for (size_t i = 0; i < n; i++)
            in[i] = (int)(i % 1009) * (rank + 1) - rank;
        PMPI_Allreduce_c(in, want, big, MPI_INT, MPI_SUM, dup);
        memset(got, 0, n * sizeof *got);
        MPI_Allreduce_c(in, got, big, MPI_INT, MPI_SUM, dup);
        report("MPI_Allreduce_c int sum (too large, forwarded)", got, want, n * sizeof *got);
        memset(got, 0, n * sizeof *got);
        MPI_Iallreduce_c(in, got, big, MPI_INT, MPI_SUM, dup, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        report("MPI_Iallreduce_c int sum (too large, forwarded)", got, want, n * sizeof *got);
        free(in);
        free(got);
        free(want);
    }

    long (*offloaded)(void) = (long (*)(void))dlsym(RTLD_DEFAULT, "collwire_pmpi_offloaded_calls");
    if (rank == 0)
        printf("largecount_check: cases=%d mismatches=%d offloaded=%ld\n", cases, failures,
               offloaded ? offloaded() : -1L);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return failures ? 1 : 0;
}
