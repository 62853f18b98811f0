/*
 * milc_cg.c — a MILC-like conjugate-gradient solver, written against plain MPI.
 *
 * Solves A x = b on a 4-D periodic lattice of L^3 x T sites with 3 (colour) components per
 * site, where A = m^2 + (weighted lattice Laplacian) with fixed pseudo-random link weights
 * U_mu(x) in [0.5, 1): symmetric positive definite, a nearest-neighbour stencil like MILC's
 * Dslash. The lattice is cut along t over the ranks; every application of A exchanges the
 * boundary t-slices with the two neighbours (MPI_Isend / MPI_Irecv / MPI_Waitall) while the
 * interior is computed. Each CG iteration does two 8-byte MPI_Allreduce calls (p.Ap and r.r)
 * on a duplicate of MPI_COMM_WORLD, as MILC's ks_congrad does (g_doublesum).
 *
 * usage: milc_cg [L] [T] [mass^2] [tolerance] [max iterations]
 * Prints (rank 0) one line of key=value pairs: iterations, relative residual (recomputed
 * from the final x), |x|^2 and its bits, seconds per iteration and per allreduce.
 */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NC 3 /* components per site */

static int L, T, LT; /* lattice sizes; local t extent */
static int rank, size, up, down;
static MPI_Comm comm;
static double *U[4]; /* link weight U_mu(x), x local (with one halo slice below for mu=t) */
static long allreduces;
static double allreduce_seconds;

static inline long site(int x, int y, int z, int t) {
    /* t runs from -1 to LT (halo slices) */
    return (((long)(t + 1) * L + z) * L + y) * L + x;
}
static long slice(void) { return (long)L * L * L; }

/* Deterministic pseudo-random weight of link (global site, mu) in [0.5, 1). */
static double weight(long gsite, int mu) {
    uint64_t h = (uint64_t)gsite * 4 + (uint64_t)mu + 0x9e3779b97f4a7c15ull;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return 0.5 + 0.5 * (double)(h >> 11) / 9007199254740992.0;
}

static long global_site(int x, int y, int z, int t) {
    int gt = ((rank * LT + t) % T + T) % T;
    return (((long)gt * L + z) * L + y) * L + x;
}

static double dot(const double *a, const double *b) {
    double local = 0, global = 0;
    for (int t = 0; t < LT; t++)
        for (long s = 0; s < slice(); s++)
            for (int c = 0; c < NC; c++) {
                long i = (site(0, 0, 0, t) + s) * NC + c;
                local += a[i] * b[i];
            }
    double t0 = MPI_Wtime();
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, comm);
    allreduce_seconds += MPI_Wtime() - t0;
    allreduces++;
    return global;
}

/* Fills the halo slices t = -1 and t = LT of v from the neighbours. */
static void halo_start(double *v, MPI_Request req[4]) {
    long n = slice() * NC;
    MPI_Irecv(v + site(0, 0, 0, -1) * NC, (int)n, MPI_DOUBLE, down, 1, comm, &req[0]);
    MPI_Irecv(v + site(0, 0, 0, LT) * NC, (int)n, MPI_DOUBLE, up, 2, comm, &req[1]);
    MPI_Isend(v + site(0, 0, 0, LT - 1) * NC, (int)n, MPI_DOUBLE, up, 1, comm, &req[2]);
    MPI_Isend(v + site(0, 0, 0, 0) * NC, (int)n, MPI_DOUBLE, down, 2, comm, &req[3]);
}

static double mass2;

static void apply_site(double *out, const double *v, int x, int y, int z, int t) {
    long s = site(x, y, z, t);
    int xp = (x + 1) % L, xm = (x + L - 1) % L, yp = (y + 1) % L, ym = (y + L - 1) % L;
    int zp = (z + 1) % L, zm = (z + L - 1) % L;
    long nb_up[4] = {site(xp, y, z, t), site(x, yp, z, t), site(x, y, zp, t), site(x, y, z, t + 1)};
    long nb_dn[4] = {site(xm, y, z, t), site(x, ym, z, t), site(x, y, zm, t), site(x, y, z, t - 1)};
    for (int c = 0; c < NC; c++) {
        double diag = mass2, off = 0;
        for (int mu = 0; mu < 4; mu++) {
            double uf = U[mu][s], ub = U[mu][nb_dn[mu]];
            diag += uf + ub;
            off += uf * v[nb_up[mu] * NC + c] + ub * v[nb_dn[mu] * NC + c];
        }
        out[s * NC + c] = diag * v[s * NC + c] - off;
    }
}

/* out = A v; interior t-slices overlap the halo exchange. */
static void apply(double *out, double *v) {
    MPI_Request req[4];
    halo_start(v, req);
    for (int t = 1; t < LT - 1; t++)
        for (int z = 0; z < L; z++)
            for (int y = 0; y < L; y++)
                for (int x = 0; x < L; x++)
                    apply_site(out, v, x, y, z, t);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    for (int t = 0; t < LT; t += (LT > 1 ? LT - 1 : 1))
        for (int z = 0; z < L; z++)
            for (int y = 0; y < L; y++)
                for (int x = 0; x < L; x++)
                    apply_site(out, v, x, y, z, t);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    L = argc > 1 ? atoi(argv[1]) : 6;
    T = argc > 2 ? atoi(argv[2]) : 8;
    mass2 = argc > 3 ? atof(argv[3]) : 0.05;
    double tol = argc > 4 ? atof(argv[4]) : 1e-10;
    int max_iter = argc > 5 ? atoi(argv[5]) : 1000;
    if (L < 2 || T % size != 0 || T / size < 2) {
        if (rank == 0)
            fprintf(stderr, "milc_cg: need L >= 2 and T a multiple of ranks with >= 2 slices each\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    LT = T / size;
    up = (rank + 1) % size;
    down = (rank + size - 1) % size;
    long sites = slice() * (LT + 2); /* with halos */
    for (int mu = 0; mu < 4; mu++) {
        U[mu] = calloc(sites, sizeof(double));
        for (int t = -1; t < LT; t++)
            for (int z = 0; z < L; z++)
                for (int y = 0; y < L; y++)
                    for (int x = 0; x < L; x++)
                        U[mu][site(x, y, z, t)] = weight(global_site(x, y, z, t), mu);
    }
    double *x = calloc(sites * NC, sizeof(double)), *r = calloc(sites * NC, sizeof(double));
    double *p = calloc(sites * NC, sizeof(double)), *ap = calloc(sites * NC, sizeof(double));
    double *b = calloc(sites * NC, sizeof(double));
    /* A point source plus a smooth background, different on every rank's slices. */
    for (int t = 0; t < LT; t++)
        for (int z = 0; z < L; z++)
            for (int y = 0; y < L; y++)
                for (int xx = 0; xx < L; xx++)
                    for (int c = 0; c < NC; c++) {
                        long g = global_site(xx, y, z, t);
                        b[site(xx, y, z, t) * NC + c] =
                            (g == 0 && c == 0 ? 1.0 : 0.0) + 0.01 * sin(0.1 * (double)(g * NC + c));
                    }

    /* CG from x = 0: r = p = b. */
    memcpy(r, b, sites * NC * sizeof(double));
    memcpy(p, b, sites * NC * sizeof(double));
    double bb = dot(b, b), rr = bb;
    int iter = 0;
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    allreduce_seconds = 0;
    long allreduces_before = allreduces;
    while (iter < max_iter && rr > tol * tol * bb) {
        apply(ap, p);
        double alpha = rr / dot(p, ap);
        for (long i = 0; i < sites * NC; i++) {
            x[i] += alpha * p[i];
            r[i] -= alpha * ap[i];
        }
        double rr_new = dot(r, r);
        double beta = rr_new / rr;
        rr = rr_new;
        for (long i = 0; i < sites * NC; i++)
            p[i] = r[i] + beta * p[i];
        iter++;
    }
    double seconds = MPI_Wtime() - t0;
    long calls = allreduces - allreduces_before;

    /* True residual |b - A x| / |b| from the final x. */
    apply(ap, x);
    for (long i = 0; i < sites * NC; i++)
        r[i] = b[i] - ap[i];
    double true_res = sqrt(dot(r, r) / bb);
    double xx = dot(x, x);
    uint64_t bits;
    memcpy(&bits, &xx, sizeof bits);
    if (rank == 0)
        printf("milc_cg: L=%d T=%d ranks=%d mass2=%g iterations=%d residual=%.3e "
               "x2=%.17g x2_bits=%016llx seconds_per_iteration=%.6f "
               "allreduces_per_iteration=%.1f us_per_allreduce=%.1f converged=%d\n",
               L, T, size, mass2, iter, true_res, xx, (unsigned long long)bits,
               iter ? seconds / iter : 0.0, iter ? (double)calls / iter : 0.0,
               calls ? 1e6 * allreduce_seconds / (double)calls : 0.0,
               true_res <= 10 * tol);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return true_res <= 10 * tol ? 0 : 1;
}
