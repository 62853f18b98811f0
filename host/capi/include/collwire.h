/*
 * collwire.h — C interface of libcollwire, the collwire host driver.
 *
 * Collective operations (allreduce, reduce, scan, barrier) offloaded to the collwire boards
 * in the network path. A communicator is opened from a board map (TOML, written by
 * `collwire serve --write-config` or by the cluster's launcher); every rank of a communicator
 * must issue the same collectives in the same order, as in MPI.
 *
 * Every function returns a collwire_status. On failure, collwire_last_error() describes it
 * (per thread). Bad arguments, and calls the boards cannot run (COLLWIRE_ERR_UNSUPPORTED), are
 * refused before anything is sent. Operations wait as MPI does (a late rank, a long message):
 * lost datagrams are retransmitted; a board that answers no retransmission for the board map's
 * dead_after_ms ends the operation in COLLWIRE_ERR_TRANSPORT naming the board, never in a silent
 * endless wait. A fail-fast deadline is opt-in (timeout_ms in the board map, or
 * collwire_comm_set_timeout_ms): the operation then ends in COLLWIRE_ERR_TIMEOUT.
 *
 * Buffers hold little-endian elements of the given datatype (the host's own layout on x86 and
 * ARM). Floating-point results are bit-exact and reproducible: the boards combine in the fixed
 * order of the chosen algorithm with IEEE 754 round-to-nearest-even.
 *
 * Link with -lcollwire. Not thread-safe per communicator: use one communicator per thread.
 */
#ifndef COLLWIRE_H
#define COLLWIRE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum collwire_status {
    COLLWIRE_OK = 0,
    /* A bad argument (NULL pointer, datatype/op pair, root, count). Nothing was sent. */
    COLLWIRE_ERR_ARG = 1,
    /* The board map could not be read or does not fit the communicator. */
    COLLWIRE_ERR_CONFIG = 2,
    /* The operation did not complete before its (opt-in) deadline. */
    COLLWIRE_ERR_TIMEOUT = 3,
    /* The board refused the operation (unsupported, bad topology, mismatched ranks). */
    COLLWIRE_ERR_REFUSED = 4,
    /* The socket failed, or the board never answered any retransmission (is the board, or
     * collwire serve, there?). The message names the board. */
    COLLWIRE_ERR_TRANSPORT = 5,
    /* A bug in libcollwire. */
    COLLWIRE_ERR_INTERNAL = 6,
    /* The boards cannot run this call: its shape (datatype, op, count, ranks per host, MTU,
     * communicator size) is beyond what they implement. Nothing was sent, or the board answered
     * `unsupported`/`bad-topology`/`too-large`. Run the call another way (MPI does). */
    COLLWIRE_ERR_UNSUPPORTED = 7
} collwire_status;

/* Element types (the wire codes). */
typedef enum collwire_datatype {
    COLLWIRE_INT32 = 0,
    COLLWIRE_UINT32 = 1,
    COLLWIRE_INT64 = 2,
    COLLWIRE_UINT64 = 3,
    COLLWIRE_FLOAT = 4,  /* IEEE 754 binary32 */
    COLLWIRE_DOUBLE = 5  /* IEEE 754 binary64 */
} collwire_datatype;

/* Reduction operators (the wire codes). Bitwise ops are for integers only. */
typedef enum collwire_op {
    COLLWIRE_SUM = 0,
    COLLWIRE_MIN = 1,
    COLLWIRE_MAX = 2,
    COLLWIRE_BAND = 3,
    COLLWIRE_LAND = 4,
    COLLWIRE_BOR = 5,
    COLLWIRE_LOR = 6,
    COLLWIRE_BXOR = 7,
    COLLWIRE_LXOR = 8
} collwire_op;

typedef struct CollwireComm collwire_comm;
typedef struct CollwireRequest collwire_request;

/* Opens rank `rank` of a communicator of `size` ranks. All ranks of one communicator pass the
 * same `comm_id`; communicators in use at the same time need distinct ids. `config_path`
 * NULL means the file named by $COLLWIRE_CONFIG. */
int collwire_comm_open(const char *config_path, int rank, int size, uint16_t comm_id,
                       collwire_comm **out);
/* Closes a communicator (NULL is ignored); requests still posted are abandoned. */
void collwire_comm_close(collwire_comm *comm);
/* Opt-in fail-fast deadline of each operation, in milliseconds from its post; 0: none. */
int collwire_comm_set_timeout_ms(collwire_comm *comm, uint64_t milliseconds);
/* The rank and size the communicator was opened with (either pointer may be NULL). */
int collwire_comm_rank_size(collwire_comm *comm, int *rank, int *size);
/* Message of this thread's last failure ("" if none); valid until the next call. */
const char *collwire_last_error(void);

/* Blocking collectives. `send == recv` is the in-place form. */
int collwire_allreduce(collwire_comm *comm, const void *send, void *recv, size_t count,
                       int datatype, int op);
/* Only `root` writes `recv`; other ranks may pass NULL. */
int collwire_reduce(collwire_comm *comm, const void *send, void *recv, size_t count,
                    int datatype, int op, int root);
/* Inclusive prefix: rank r receives the reduction over ranks 0..r. */
int collwire_scan(collwire_comm *comm, const void *send, void *recv, size_t count,
                  int datatype, int op);
int collwire_barrier(collwire_comm *comm);

/* Non-blocking collectives: `send` is copied at post; `recv` must stay valid until the
 * request completes. Complete every request with collwire_test (until *flag is 1) or
 * collwire_wait; both free it and set *request to NULL. */
int collwire_iallreduce(collwire_comm *comm, const void *send, void *recv, size_t count,
                        int datatype, int op, collwire_request **request);
int collwire_ireduce(collwire_comm *comm, const void *send, void *recv, size_t count,
                     int datatype, int op, int root, collwire_request **request);
int collwire_iscan(collwire_comm *comm, const void *send, void *recv, size_t count,
                   int datatype, int op, collwire_request **request);
int collwire_ibarrier(collwire_comm *comm, collwire_request **request);
/* Never blocks. *flag = 1 when the request completed (result written, request freed, *request
 * set to NULL; a NULL *request counts as complete), else 0. */
int collwire_test(collwire_comm *comm, collwire_request **request, int *flag);
/* Blocks until the request completes (or its deadline passes). */
int collwire_wait(collwire_comm *comm, collwire_request **request);

#ifdef __cplusplus
}
#endif

#endif /* COLLWIRE_H */
