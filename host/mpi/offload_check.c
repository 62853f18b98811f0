/*
 * offload_check.c — every intercepted collective compared with MPI's own result.
 *
 * Plain MPI: each case calls the MPI_ function (offloaded when the collwire PMPI library is
 * preloaded) and the PMPI_ function (always MPI's own implementation) on the same, distinct
 * per-rank data and compares the results byte for byte. Floating-point data are chosen so that
 * every summation order gives the same bits (small multiples of powers of two); the boards'
 * own bit-exactness for arbitrary data is tested against the golden model elsewhere.
 *
 * Prints one line per case ("ok"/"MISMATCH"), then "offloaded N calls" on rank 0 when the
 * library is loaded (looked up with dlsym, so the program itself knows nothing of collwire).
 * Exits non-zero on any mismatch.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, failures;

static void report(const char *name, const void *got, const void *want, size_t bytes) {
    int bad = memcmp(got, want, bytes) != 0, any = 0;
    PMPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%-44s %s\n", name, any ? "MISMATCH" : "ok");
    failures += any;
}

#define N 1000

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm dup, half;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);

    static double d_in[N], d_got[N], d_want[N];
    static float f_in[N], f_got[N], f_want[N];
    static int i_in[N], i_got[N], i_want[N];
    static unsigned u_in[N], u_got[N], u_want[N];
    static long l_in[N], l_got[N], l_want[N];
    static unsigned long ul_in[N], ul_got[N], ul_want[N];
    static short s_in[N], s_got[N], s_want[N];
    for (int i = 0; i < N; i++) {
        d_in[i] = (double)((rank * 7 + i * 13) % 101 - 50) * 0.125 + (double)(1 << (i % 20));
        f_in[i] = (float)((rank * 5 + i * 3) % 61 - 30) * 0.25f;
        i_in[i] = (rank + 1) * 1000003 - i * 7919;
        u_in[i] = 0x9e3779b9u * (unsigned)(rank + 1) ^ (unsigned)i * 2654435761u;
        l_in[i] = ((long)rank - 2) * 4000000000L + i;
        ul_in[i] = (1ul << ((rank * 11 + i) % 64)) | (unsigned long)i;
        s_in[i] = (short)(rank * 3 + i);
    }

#define ALLREDUCE(name, type, in, got, want, cnt, op, comm)                                      \
    do {                                                                                       \
        memset(got, 0, sizeof got);                                                            \
        memset(want, 0, sizeof want);                                                          \
        MPI_Allreduce(in, got, cnt, type, op, comm);                                           \
        PMPI_Allreduce(in, want, cnt, type, op, comm);                                         \
        report(name, got, want, sizeof got);                                                   \
    } while (0)

    ALLREDUCE("allreduce double sum 1 (world)", MPI_DOUBLE, d_in, d_got, d_want, 1, MPI_SUM,
              MPI_COMM_WORLD);
    ALLREDUCE("allreduce double sum 4 (dup)", MPI_DOUBLE, d_in, d_got, d_want, 4, MPI_SUM, dup);
    ALLREDUCE("allreduce double max 1000 (multi-segment)", MPI_DOUBLE, d_in, d_got, d_want, N,
              MPI_MAX, dup);
    ALLREDUCE("allreduce float sum 8", MPI_FLOAT, f_in, f_got, f_want, 8, MPI_SUM, dup);
    ALLREDUCE("allreduce float min 200", MPI_FLOAT, f_in, f_got, f_want, 200, MPI_MIN, dup);
    ALLREDUCE("allreduce int sum 1000", MPI_INT, i_in, i_got, i_want, N, MPI_SUM, MPI_COMM_WORLD);
    ALLREDUCE("allreduce int land 16", MPI_INT, i_in, i_got, i_want, 16, MPI_LAND, dup);
    ALLREDUCE("allreduce unsigned bxor 32", MPI_UNSIGNED, u_in, u_got, u_want, 32, MPI_BXOR, dup);
    ALLREDUCE("allreduce long min 5", MPI_LONG, l_in, l_got, l_want, 5, MPI_MIN, dup);
    ALLREDUCE("allreduce unsigned long bor 7", MPI_UNSIGNED_LONG, ul_in, ul_got, ul_want, 7,
              MPI_BOR, dup);
    /* Not offloadable: forwarded to MPI unchanged, still correct. */
    ALLREDUCE("allreduce int prod 3 (forwarded)", MPI_INT, i_in, i_got, i_want, 3, MPI_PROD, dup);
    ALLREDUCE("allreduce short sum 3 (forwarded)", MPI_SHORT, s_in, s_got, s_want, 3, MPI_SUM,
              dup);
    ALLREDUCE("allreduce double sum 2 (split, forwarded)", MPI_DOUBLE, d_in, d_got, d_want, 2,
              MPI_SUM, half);

    /* MPI_IN_PLACE */
    memcpy(d_got, d_in, sizeof d_in);
    MPI_Allreduce(MPI_IN_PLACE, d_got, 3, MPI_DOUBLE, MPI_SUM, dup);
    PMPI_Allreduce(d_in, d_want, 3, MPI_DOUBLE, MPI_SUM, dup);
    report("allreduce double sum 3 in place", d_got, d_want, 3 * sizeof(double));

    /* Reduce, root 2 (size-1 if smaller), with and without MPI_IN_PLACE at the root. */
    int root = size > 2 ? 2 : size - 1;
    memset(d_got, 0, sizeof d_got);
    memset(d_want, 0, sizeof d_want);
    MPI_Reduce(d_in, d_got, 6, MPI_DOUBLE, MPI_SUM, root, dup);
    PMPI_Reduce(d_in, d_want, 6, MPI_DOUBLE, MPI_SUM, root, dup);
    report("reduce double sum 6 root 2", d_got, d_want, sizeof d_got);
    memcpy(i_got, i_in, sizeof i_in);
    MPI_Reduce(rank == root ? MPI_IN_PLACE : i_got, rank == root ? i_got : NULL, 9, MPI_INT,
               MPI_MAX, root, MPI_COMM_WORLD);
    PMPI_Reduce(i_in, i_want, 9, MPI_INT, MPI_MAX, root, MPI_COMM_WORLD);
    report("reduce int max 9 root 2 in place", i_got, i_want,
           rank == root ? 9 * sizeof(int) : 0);

    /* Scan */
    memset(i_got, 0, sizeof i_got);
    memset(i_want, 0, sizeof i_want);
    MPI_Scan(i_in, i_got, 10, MPI_INT, MPI_SUM, dup);
    PMPI_Scan(i_in, i_want, 10, MPI_INT, MPI_SUM, dup);
    report("scan int sum 10", i_got, i_want, sizeof i_got);
    memset(l_got, 0, sizeof l_got);
    memset(l_want, 0, sizeof l_want);
    MPI_Scan(l_in, l_got, 4, MPI_LONG, MPI_MAX, dup);
    PMPI_Scan(l_in, l_want, 4, MPI_LONG, MPI_MAX, dup);
    report("scan long max 4", l_got, l_want, sizeof l_got);

    /* Barrier */
    int berr = MPI_Barrier(dup);
    int bwant = MPI_SUCCESS;
    report("barrier", &berr, &bwant, sizeof berr);

    /* Iallreduce with Test polling, and with Waitall next to point-to-point requests. */
    memset(d_got, 0, sizeof d_got);
    MPI_Request req;
    MPI_Iallreduce(d_in, d_got, 2, MPI_DOUBLE, MPI_SUM, dup, &req);
    int flag = 0;
    long polls = 0;
    while (!flag) {
        MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        polls++;
    }
    PMPI_Allreduce(d_in, d_want, 2, MPI_DOUBLE, MPI_SUM, dup);
    report("iallreduce double sum 2 + MPI_Test", d_got, d_want, 2 * sizeof(double));

    MPI_Request reqs[3];
    int right = (rank + 1) % size, left = (rank + size - 1) % size, token = rank * 10, got_token = -1;
    memset(f_got, 0, sizeof f_got);
    MPI_Irecv(&got_token, 1, MPI_INT, left, 5, dup, &reqs[0]);
    MPI_Iallreduce(f_in, f_got, 5, MPI_FLOAT, MPI_MAX, dup, &reqs[1]);
    MPI_Isend(&token, 1, MPI_INT, right, 5, dup, &reqs[2]);
    MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE);
    PMPI_Allreduce(f_in, f_want, 5, MPI_FLOAT, MPI_MAX, dup);
    report("iallreduce float max 5 + MPI_Waitall", f_got, f_want, 5 * sizeof(float));
    int want_token = left * 10;
    report("halo token through MPI_Waitall", &got_token, &want_token, sizeof got_token);

    /* Ireduce (root 2, in place at the root) completed by MPI_Waitany, Iscan completed by
     * MPI_Testsome polling, Ibarrier completed by MPI_Wait; all three in flight at once. */
    MPI_Request nb[3];
    memcpy(l_got, l_in, sizeof l_in);
    memset(u_got, 0, sizeof u_got);
    MPI_Ireduce(rank == root ? MPI_IN_PLACE : l_got, rank == root ? l_got : NULL, 6, MPI_LONG,
                MPI_SUM, root, dup, &nb[0]);
    MPI_Iscan(u_in, u_got, 12, MPI_UNSIGNED, MPI_BXOR, dup, &nb[1]);
    MPI_Ibarrier(dup, &nb[2]);
    int index = -1;
    MPI_Waitany(3, nb, &index, MPI_STATUS_IGNORE);
    int outcount = 0, indices[3];
    do
        MPI_Testsome(3, nb, &outcount, indices, MPI_STATUSES_IGNORE);
    while (outcount != MPI_UNDEFINED && (nb[0] != MPI_REQUEST_NULL || nb[1] != MPI_REQUEST_NULL));
    int nberr = MPI_Wait(&nb[2], MPI_STATUS_IGNORE);
    PMPI_Reduce(l_in, l_want, 6, MPI_LONG, MPI_SUM, root, dup);
    PMPI_Scan(u_in, u_want, 12, MPI_UNSIGNED, MPI_BXOR, dup);
    report("ireduce long sum 6 root 2 in place + Waitany", l_got, l_want,
           rank == root ? 6 * sizeof(long) : 0);
    report("iscan unsigned bxor 12 + MPI_Testsome", u_got, u_want, 12 * sizeof(unsigned));
    report("ibarrier + MPI_Wait", &nberr, &bwant, sizeof nberr);
    int all_null = nb[0] == MPI_REQUEST_NULL && nb[1] == MPI_REQUEST_NULL &&
                   nb[2] == MPI_REQUEST_NULL, yes = 1;
    report("non-blocking requests freed", &all_null, &yes, sizeof all_null);

    long (*offloaded)(void) = (long (*)(void))dlsym(RTLD_DEFAULT, "collwire_pmpi_offloaded_calls");
    if (rank == 0) {
        if (offloaded)
            printf("offloaded %ld calls\n", offloaded());
        else
            printf("collwire PMPI library not loaded\n");
        printf("%s: %d mismatches\n", failures ? "FAILED" : "PASSED", failures);
    }
    MPI_Comm_free(&half);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return failures ? 1 : 0;
}
