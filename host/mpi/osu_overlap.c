/*
 * osu_overlap.c — overlap of a non-blocking allreduce with computation, measured as OSU's
 * osu_iallreduce does, plus the host CPU time one allreduce costs. Plain MPI: run it with and
 * without the collwire PMPI library to compare the board with the MPI library's own
 * MPI_Iallreduce (which, without a progress thread, advances only inside MPI calls).
 *
 *   t_pure     mean of MPI_Iallreduce + MPI_Wait alone
 *   t_cpu      computation spun between post and wait, sized to t_pure (no MPI_Test calls,
 *              OSU's default), so t_test = 0
 *   t_overall  mean of post + compute + wait
 *   overlap %  max(0, 100 - 100 * (t_overall - (t_cpu - t_test)) / t_pure)
 *
 * Host cost: thread CPU time (CLOCK_THREAD_CPUTIME_ID) inside MPI_Iallreduce (post) and inside
 * MPI_Wait, per call, measured in a third phase whose computation is 4 x t_pure so that the
 * result has normally arrived before the wait (the cost of issuing and completing one
 * allreduce, not of waiting for it).
 *
 * Floor: the thread CPU time of one sendto + one recv of a 64-byte datagram between two
 * loopback UDP sockets of this process (no other process woken), each pair after the same
 * 4 x t_pure of computation as the host-cost phase (a syscall after milliseconds of
 * computation runs on cold caches and costs several times one in a tight loop; both are
 * printed) — what the operating system alone charges for the two datagrams an offloaded
 * allreduce exchanges with its board, so the host cost can be split into kernel and library.
 *
 * usage: osu_overlap [doubles per rank] [iterations] [warmup]
 * Prints one line of key=value pairs on rank 0.
 */
#include <arpa/inet.h>
#include <mpi.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double thread_cpu(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static volatile double sink;

/* Busy computation for `seconds` of wall time (no MPI calls inside). */
static void compute(double seconds) {
    double end = MPI_Wtime() + seconds, x = 1.0;
    while (MPI_Wtime() < end)
        for (int i = 0; i < 64; i++)
            x = x * 1.0000001 + 1e-9;
    sink = x;
}

/* Mean thread CPU seconds of one sendto + recv pair on loopback, each after `gap` seconds of
 * computation, or -1 if sockets fail. */
static double udp_pair_cpu(int pairs, double gap) {
    int a = socket(AF_INET, SOCK_DGRAM, 0), b = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = 0};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (a < 0 || b < 0 || bind(b, (struct sockaddr *)&addr, sizeof addr) != 0 ||
        getsockname(b, (struct sockaddr *)&addr, &len) != 0) {
        close(a);
        close(b);
        return -1;
    }
    char buf[64] = {0};
    double cpu = 0;
    for (int i = 0; i < pairs + 10; i++) {
        compute(gap);
        double c0 = thread_cpu();
        ssize_t s = sendto(a, buf, sizeof buf, 0, (struct sockaddr *)&addr, sizeof addr);
        ssize_t r = recv(b, buf, sizeof buf, 0);
        double c1 = thread_cpu();
        if (s != (ssize_t)sizeof buf || r != (ssize_t)sizeof buf) {
            cpu = -1;
            break;
        }
        if (i >= 10)
            cpu += c1 - c0;
    }
    close(a);
    close(b);
    return cpu < 0 ? -1 : cpu / pairs;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int count = argc > 1 ? atoi(argv[1]) : 1;
    int iters = argc > 2 ? atoi(argv[2]) : 200;
    int warmup = argc > 3 ? atoi(argv[3]) : 10;
    double *in = malloc(sizeof(double) * (size_t)count), *out = malloc(sizeof(double) * (size_t)count);
    for (int i = 0; i < count; i++)
        in[i] = rank + 0.5 * i;
    MPI_Request req;

    /* t_pure */
    double t_pure = 0;
    for (int i = 0; i < iters + warmup; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        MPI_Iallreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (i >= warmup)
            t_pure += MPI_Wtime() - t0;
    }
    t_pure /= iters;
    /* Every rank computes for the same time: the slowest rank's t_pure. */
    double t_cpu;
    MPI_Allreduce(&t_pure, &t_cpu, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

    double t_overall = 0, post_cpu = 0, wait_cpu = 0, post_wall = 0, wait_wall = 0;
    for (int i = 0; i < iters + warmup; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime(), c0 = thread_cpu();
        MPI_Iallreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
        double c1 = thread_cpu(), t1 = MPI_Wtime();
        compute(t_cpu);
        double t2 = MPI_Wtime(), c2 = thread_cpu();
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        double c3 = thread_cpu(), t3 = MPI_Wtime();
        if (i >= warmup) {
            t_overall += t3 - t0;
            post_cpu += c1 - c0;
            wait_cpu += c3 - c2;
            post_wall += t1 - t0;
            wait_wall += t3 - t2;
        }
    }
    /* Host cost with the result already there. */
    post_cpu = wait_cpu = post_wall = wait_wall = 0;
    for (int i = 0; i < iters + warmup; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime(), c0 = thread_cpu();
        MPI_Iallreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
        double c1 = thread_cpu(), t1 = MPI_Wtime();
        compute(4 * t_cpu);
        double t2 = MPI_Wtime(), c2 = thread_cpu();
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        double c3 = thread_cpu(), t3 = MPI_Wtime();
        if (i >= warmup) {
            post_cpu += c1 - c0;
            wait_cpu += c3 - c2;
            post_wall += t1 - t0;
            wait_wall += t3 - t2;
        }
    }
    t_overall /= iters;
    post_cpu /= iters;
    wait_cpu /= iters;
    post_wall /= iters;
    wait_wall /= iters;
    double t_test = 0;
    double overlap = 100.0 - 100.0 * (t_overall - (t_cpu - t_test)) / t_pure;
    if (overlap < 0)
        overlap = 0;
    double floor_hot = udp_pair_cpu(1000, 0), floor_cold = udp_pair_cpu(iters, 4 * t_cpu);
    /* Report the worst rank's overlap and the mean host cost. */
    double worst, costs[4] = {post_cpu, wait_cpu, post_wall, wait_wall}, mean[4];
    MPI_Reduce(&overlap, &worst, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(costs, mean, 4, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("osu_overlap: ranks=%d bytes=%d iterations=%d t_pure_us=%.2f t_cpu_us=%.2f "
               "t_overall_us=%.2f overlap_pct=%.2f post_cpu_us=%.2f wait_cpu_us=%.2f "
               "host_cpu_us=%.2f post_wall_us=%.2f wait_wall_us=%.2f udp_pair_cpu_us=%.2f "
               "udp_pair_hot_cpu_us=%.2f\n",
               size, (int)(count * sizeof(double)), iters, 1e6 * t_pure, 1e6 * t_cpu,
               1e6 * t_overall, worst, 1e6 * mean[0] / size, 1e6 * mean[1] / size,
               1e6 * (mean[0] + mean[1]) / size, 1e6 * mean[2] / size, 1e6 * mean[3] / size,
               1e6 * floor_cold, 1e6 * floor_hot);
    free(in);
    free(out);
    MPI_Finalize();
    return 0;
}
