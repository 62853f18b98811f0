/*
 * abi_check.c — the C ABI's error paths, as a C program sees them: typed status codes and
 * messages for bad arguments (nothing sent), a missing board map, and a board that never
 * answers (timeout). usage: abi_check MAP   (MAP points at a board that never answers)
 */
#include <stdio.h>
#include <string.h>

#include "collwire.h"

static int failures;

static void expect(const char *what, int got, int want) {
    const char *msg = collwire_last_error();
    printf("%-40s status %d (want %d) %s\n", what, got, want, got == want ? "ok" : "WRONG");
    if (got != want)
        failures++;
    if (got != COLLWIRE_OK && (msg == NULL || msg[0] == '\0')) {
        printf("%-40s has no message: WRONG\n", what);
        failures++;
    }
}

int main(int argc, char **argv) {
    if (argc < 2)
        return 2;
    collwire_comm *comm = NULL;
    expect("open a missing map", collwire_comm_open("/nonexistent/map.toml", 0, 2, 1, &comm),
           COLLWIRE_ERR_CONFIG);
    expect("open rank 5 of 2", collwire_comm_open(argv[1], 5, 2, 1, &comm), COLLWIRE_ERR_ARG);
    expect("open", collwire_comm_open(argv[1], 0, 2, 1, &comm), COLLWIRE_OK);
    int rank = -1, size = -1;
    expect("rank and size", collwire_comm_rank_size(comm, &rank, &size), COLLWIRE_OK);
    if (rank != 0 || size != 2)
        failures++;

    double d[4] = {1, 2, 3, 4}, out[4];
    expect("unknown datatype", collwire_allreduce(comm, d, out, 4, 9, COLLWIRE_SUM),
           COLLWIRE_ERR_ARG);
    expect("bitwise op on doubles",
           collwire_allreduce(comm, d, out, 4, COLLWIRE_DOUBLE, COLLWIRE_BAND), COLLWIRE_ERR_ARG);
    expect("NULL send buffer",
           collwire_allreduce(comm, NULL, out, 4, COLLWIRE_DOUBLE, COLLWIRE_SUM), COLLWIRE_ERR_ARG);
    expect("root out of range",
           collwire_reduce(comm, d, out, 4, COLLWIRE_DOUBLE, COLLWIRE_SUM, 2), COLLWIRE_ERR_ARG);
    expect("NULL request", collwire_iallreduce(comm, d, out, 4, COLLWIRE_DOUBLE, COLLWIRE_SUM, NULL),
           COLLWIRE_ERR_ARG);
    expect("NULL communicator", collwire_barrier(NULL), COLLWIRE_ERR_ARG);
    printf("sent after bad arguments: expect 0\n");
    fflush(stdout);

    /* One real call to a board that never answers: a timeout, not a hang. */
    collwire_comm_set_timeout_ms(comm, 200);
    collwire_request *req = NULL;
    expect("post", collwire_iallreduce(comm, d, out, 4, COLLWIRE_DOUBLE, COLLWIRE_SUM, &req),
           COLLWIRE_OK);
    int flag = -1;
    expect("test before the deadline", collwire_test(comm, &req, &flag), COLLWIRE_OK);
    if (flag != 0 || req == NULL)
        failures++;
    expect("wait past the deadline", collwire_wait(comm, &req), COLLWIRE_ERR_TIMEOUT);
    if (req != NULL || strstr(collwire_last_error(), "timed out") == NULL)
        failures++;
    expect("wait on a completed (NULL) request", collwire_wait(comm, &req), COLLWIRE_OK);
    collwire_comm_close(comm);
    printf("%s\n", failures ? "FAILED" : "PASSED");
    return failures ? 1 : 0;
}
