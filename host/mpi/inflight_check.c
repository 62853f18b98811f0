/*
 * inflight_check.c — non-blocking collectives outstanding on several communicators at once.
 *
 * Plain MPI: MPI_COMM_WORLD and 7 duplicates of it (8 communicators; with the collwire PMPI
 * library each gets its own collwire communicator, so its own socket and id). Each round posts
 * one MPI_Iallreduce on every communicator, each with its own data, before completing any of
 * them with one MPI_Waitall; every result is then compared byte for byte with PMPI_Allreduce on
 * the same input. Round 1: 3 doubles, SUM. Round 2: COUNT int64, MAX, where COUNT is argv[1]
 * (at most 4096; default 100, one segment at MTU 1500; 300 makes two segments per operation,
 * so 16 segments per board in flight at once).
 *
 * Prints one line per round and communicator ("ok"/"MISMATCH") on rank 0, then
 *   inflight_check: comms=8 count=COUNT mismatches=M offloaded=K
 * where K is rank 0's offloaded-call count (looked up with dlsym; -1 when the collwire library
 * is not loaded). Exits non-zero on any mismatch.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COMMS 8
#define MAX_COUNT 4096

static int rank, failures;

static void report(int round, int c, const void *got, const void *want, size_t bytes) {
    int bad = memcmp(got, want, bytes) != 0, any = 0;
    PMPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("round %d comm %d %s\n", round, c, any ? "MISMATCH" : "ok");
    failures += any;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int count = argc > 1 ? atoi(argv[1]) : 100;
    if (count < 1 || count > MAX_COUNT) {
        if (rank == 0)
            fprintf(stderr, "inflight_check: COUNT must be 1 ..= %d\n", MAX_COUNT);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm comms[COMMS];
    comms[0] = MPI_COMM_WORLD;
    for (int c = 1; c < COMMS; c++)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[c]);

    static double d_in[COMMS][MAX_COUNT], d_got[COMMS][MAX_COUNT], d_want[COMMS][MAX_COUNT];
    static int64_t l_in[COMMS][MAX_COUNT], l_got[COMMS][MAX_COUNT], l_want[COMMS][MAX_COUNT];
    for (int c = 0; c < COMMS; c++)
        for (int i = 0; i < MAX_COUNT; i++) {
            d_in[c][i] = (double)((rank * 7 + c * 31 + i * 13) % 101 - 50) * 0.25;
            l_in[c][i] = ((int64_t)rank - 1) * 3000000000LL + c * 1000003LL - i * 7919LL;
        }

    MPI_Request reqs[COMMS];
    /* Round 1: 3 doubles, SUM. */
    for (int c = 0; c < COMMS; c++)
        MPI_Iallreduce(d_in[c], d_got[c], 3, MPI_DOUBLE, MPI_SUM, comms[c], &reqs[c]);
    MPI_Waitall(COMMS, reqs, MPI_STATUSES_IGNORE);
    for (int c = 0; c < COMMS; c++) {
        PMPI_Allreduce(d_in[c], d_want[c], 3, MPI_DOUBLE, MPI_SUM, comms[c]);
        report(1, c, d_got[c], d_want[c], 3 * sizeof(double));
    }
    /* Round 2: COUNT int64, MAX. */
    for (int c = 0; c < COMMS; c++)
        MPI_Iallreduce(l_in[c], l_got[c], count, MPI_INT64_T, MPI_MAX, comms[c], &reqs[c]);
    MPI_Waitall(COMMS, reqs, MPI_STATUSES_IGNORE);
    for (int c = 0; c < COMMS; c++) {
        PMPI_Allreduce(l_in[c], l_want[c], count, MPI_INT64_T, MPI_MAX, comms[c]);
        report(2, c, l_got[c], l_want[c], (size_t)count * sizeof(int64_t));
    }

    long (*offloaded)(void) = (long (*)(void))dlsym(RTLD_DEFAULT, "collwire_pmpi_offloaded_calls");
    if (rank == 0)
        printf("inflight_check: comms=%d count=%d mismatches=%d offloaded=%ld\n", COMMS, count,
               failures, offloaded ? offloaded() : -1L);
    for (int c = 1; c < COMMS; c++)
        MPI_Comm_free(&comms[c]);
    MPI_Finalize();
    return failures ? 1 : 0;
}
