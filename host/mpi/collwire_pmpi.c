/*
 * collwire_pmpi.c — the PMPI interposer: unmodified MPI applications offload their small
 * collectives to the collwire boards when this library is loaded with LD_PRELOAD.
 *
 * Intercepted: MPI_Allreduce, MPI_Reduce, MPI_Scan, MPI_Barrier, their non-blocking forms
 * MPI_Iallreduce, MPI_Ireduce, MPI_Iscan, MPI_Ibarrier, and the completion calls (MPI_Wait,
 * MPI_Test, MPI_Waitall, MPI_Testall, MPI_Waitany, MPI_Testany, MPI_Waitsome, MPI_Testsome)
 * so that an offloaded non-blocking collective's request completes.
 *
 * Offloaded when: the communicator is MPI_COMM_WORLD or congruent to it (MILC runs on an
 * MPI_Comm_dup of it), the datatype is MPI_INT/MPI_UNSIGNED/MPI_LONG(_LONG)/MPI_UNSIGNED_LONG
 * (_LONG)/MPI_(U)INT32_T/MPI_(U)INT64_T/MPI_FLOAT/MPI_DOUBLE, the op is one collwire
 * implements for it (floats: SUM, MIN, MAX; integers: also the bitwise and logical ops), and
 * the count is positive. MPI_IN_PLACE is handled. Everything else goes to the PMPI_ function
 * unchanged.
 *
 * Configuration: $COLLWIRE_CONFIG names the board map (collwire serve --write-config). Without
 * it every call is forwarded to MPI and rank 0 says so once. $COLLWIRE_PMPI_VERBOSE=1 prints
 * what each rank offloads. Each intercepted communicator gets its own collwire communicator
 * id, agreed on by all its ranks (a PMPI_Allreduce MAX at its first collective), so
 * operations on MPI_COMM_WORLD and on a duplicate never mix on the boards, and each job starts
 * its ids at a random point so it does not collide with the last job's.
 *
 * A failed offloaded operation (timeout, refusal) is reported with collwire's message and
 * raised through the communicator's error handler (MPI_ERR_OTHER), as MPI itself would.
 *
 * Built once per MPI library (their handle types differ: pointers in Open MPI, ints in
 * MPICH) by scripts/build-mpi.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collwire.h"

/* -1 off (no config), 0 not decided yet, 1 on. */
static int enabled = 0;
static int verbose = 0;
static int keyval = MPI_KEYVAL_INVALID;
/* The next collwire communicator id. The boards remember recently completed segments by
 * (communicator id, operation id) to drop late duplicates, so a new job must not start where
 * the last one did: rank 0 seeds the sequence at random and the others adopt it (MAX). */
static int next_comm_id = 0;
static long offloaded_calls = 0;

struct comm_entry {
    collwire_comm *comm; /* NULL: this communicator is not offloaded */
};

static int world_rank(void) {
    int r = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

static int decide_enabled(void) {
    if (enabled != 0)
        return enabled;
    const char *v = getenv("COLLWIRE_PMPI_VERBOSE");
    verbose = v && *v && strcmp(v, "0") != 0;
    const char *cfg = getenv("COLLWIRE_CONFIG");
    if (!cfg || !*cfg) {
        enabled = -1;
        if (world_rank() == 0)
            fprintf(stderr, "collwire-pmpi: COLLWIRE_CONFIG is not set; "
                            "every collective goes to MPI unchanged\n");
    } else {
        enabled = 1;
        if (world_rank() == 0) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            unsigned seed = (unsigned)ts.tv_nsec ^ (unsigned)ts.tv_sec ^ ((unsigned)getpid() << 16);
            next_comm_id = 1 + (int)(seed % 60000u);
        }
    }
    return enabled;
}

static int delete_entry(MPI_Comm comm, int kv, void *attr, void *extra) {
    (void)comm;
    (void)kv;
    (void)extra;
    struct comm_entry *e = attr;
    if (e) {
        collwire_comm_close(e->comm);
        free(e);
    }
    return MPI_SUCCESS;
}

/* The collwire communicator of `comm`, or NULL to forward to MPI. Collective on `comm` the
 * first time: every intercepted collective calls it before looking at its arguments, so all
 * ranks take the same path. */
static collwire_comm *offload_comm(MPI_Comm comm) {
    if (decide_enabled() < 0 || comm == MPI_COMM_NULL)
        return NULL;
    if (keyval == MPI_KEYVAL_INVALID)
        PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_entry, &keyval, NULL);
    void *attr = NULL;
    int found = 0;
    PMPI_Comm_get_attr(comm, keyval, &attr, &found);
    if (found)
        return ((struct comm_entry *)attr)->comm;

    struct comm_entry *e = calloc(1, sizeof *e);
    int inter = 0, result = MPI_UNEQUAL;
    PMPI_Comm_test_inter(comm, &inter);
    if (!inter)
        PMPI_Comm_compare(comm, MPI_COMM_WORLD, &result);
    if (result == MPI_IDENT || result == MPI_CONGRUENT) {
        int rank, size;
        PMPI_Comm_rank(comm, &rank);
        PMPI_Comm_size(comm, &size);
        /* [0]: proposed id, [1]: this rank failed to open. MAX over the communicator. */
        int mine[2] = {next_comm_id, 0}, agreed[2];
        collwire_comm *c = NULL;
        if (collwire_comm_open(NULL, rank, size, 0, &c) != COLLWIRE_OK) {
            fprintf(stderr, "collwire-pmpi: rank %d cannot offload: %s\n", rank,
                    collwire_last_error());
            mine[1] = 1;
        }
        collwire_comm_close(c);
        PMPI_Allreduce(mine, agreed, 2, MPI_INT, MPI_MAX, comm);
        next_comm_id = agreed[0] % 65535 + 1;
        if (!agreed[1] &&
            collwire_comm_open(NULL, rank, size, (uint16_t)agreed[0], &e->comm) == COLLWIRE_OK) {
            if (verbose)
                fprintf(stderr, "collwire-pmpi: rank %d/%d offloads on collwire communicator %d\n",
                        rank, size, agreed[0]);
        } else {
            e->comm = NULL;
            if (rank == 0)
                fprintf(stderr, "collwire-pmpi: a rank could not open its board; this "
                                "communicator's collectives go to MPI\n");
        }
    }
    PMPI_Comm_set_attr(comm, keyval, e);
    return e->comm;
}

/* collwire datatype code of `t`, or -1. */
static int map_datatype(MPI_Datatype t) {
    if (t == MPI_DOUBLE)
        return COLLWIRE_DOUBLE;
    if (t == MPI_FLOAT)
        return COLLWIRE_FLOAT;
    if ((t == MPI_INT && sizeof(int) == 4) || t == MPI_INT32_T)
        return COLLWIRE_INT32;
    if ((t == MPI_UNSIGNED && sizeof(unsigned) == 4) || t == MPI_UINT32_T)
        return COLLWIRE_UINT32;
    if (t == MPI_INT64_T || (t == MPI_LONG_LONG && sizeof(long long) == 8) ||
        (t == MPI_LONG && sizeof(long) == 8))
        return COLLWIRE_INT64;
    if (t == MPI_UINT64_T || (t == MPI_UNSIGNED_LONG_LONG && sizeof(unsigned long long) == 8) ||
        (t == MPI_UNSIGNED_LONG && sizeof(unsigned long) == 8))
        return COLLWIRE_UINT64;
    return -1;
}

/* collwire op code of `op` on datatype `dt`, or -1. */
static int map_op(MPI_Op op, int dt) {
    int is_float = dt == COLLWIRE_FLOAT || dt == COLLWIRE_DOUBLE;
    if (op == MPI_SUM)
        return COLLWIRE_SUM;
    if (op == MPI_MIN)
        return COLLWIRE_MIN;
    if (op == MPI_MAX)
        return COLLWIRE_MAX;
    if (is_float)
        return -1;
    if (op == MPI_BAND)
        return COLLWIRE_BAND;
    if (op == MPI_BOR)
        return COLLWIRE_BOR;
    if (op == MPI_BXOR)
        return COLLWIRE_BXOR;
    if (op == MPI_LAND)
        return COLLWIRE_LAND;
    if (op == MPI_LOR)
        return COLLWIRE_LOR;
    if (op == MPI_LXOR)
        return COLLWIRE_LXOR;
    return -1;
}

/* Reports a failed offloaded operation through the communicator's error handler. */
static int failed(MPI_Comm comm, const char *what, int status) {
    fprintf(stderr, "collwire-pmpi: rank %d: offloaded %s failed (status %d): %s\n", world_rank(),
            what, status, collwire_last_error());
    PMPI_Comm_call_errhandler(comm, MPI_ERR_OTHER);
    return MPI_ERR_OTHER;
}

static void note(const char *what, int count, int dt, int op) {
    offloaded_calls++;
    if (verbose)
        fprintf(stderr, "collwire-pmpi: rank %d offloads %s count %d datatype %d op %d\n",
                world_rank(), what, count, dt, op);
}

/* The collwire communicator a reduction-type call (`what`) is offloaded on, with the collwire
 * datatype and op codes in *dt and *o; NULL when the call must go to MPI unchanged. The
 * communicator is looked up first, whatever the arguments: its first lookup agrees on the
 * comm id collectively, so every rank must make it. */
static collwire_comm *reduction_comm(const char *what, MPI_Comm comm, MPI_Datatype datatype,
                                     MPI_Op op, int count, int *dt, int *o) {
    collwire_comm *c = offload_comm(comm);
    *dt = map_datatype(datatype);
    *o = *dt < 0 ? -1 : map_op(op, *dt);
    if (!c || *o < 0 || count <= 0)
        return NULL;
    note(what, count, *dt, *o);
    return c;
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm) {
    int dt, o;
    collwire_comm *c = reduction_comm("MPI_Allreduce", comm, datatype, op, count, &dt, &o);
    if (!c)
        return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
    const void *send = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    int s = collwire_allreduce(c, send, recvbuf, (size_t)count, dt, o);
    return s == COLLWIRE_OK ? MPI_SUCCESS : failed(comm, "MPI_Allreduce", s);
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm) {
    int dt, o;
    collwire_comm *c = reduction_comm("MPI_Reduce", comm, datatype, op, count, &dt, &o);
    if (!c)
        return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
    int rank;
    PMPI_Comm_rank(comm, &rank);
    const void *send = (sendbuf == MPI_IN_PLACE && rank == root) ? recvbuf : sendbuf;
    int s = collwire_reduce(c, send, rank == root ? recvbuf : NULL, (size_t)count, dt, o, root);
    return s == COLLWIRE_OK ? MPI_SUCCESS : failed(comm, "MPI_Reduce", s);
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm) {
    int dt, o;
    collwire_comm *c = reduction_comm("MPI_Scan", comm, datatype, op, count, &dt, &o);
    if (!c)
        return PMPI_Scan(sendbuf, recvbuf, count, datatype, op, comm);
    const void *send = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    int s = collwire_scan(c, send, recvbuf, (size_t)count, dt, o);
    return s == COLLWIRE_OK ? MPI_SUCCESS : failed(comm, "MPI_Scan", s);
}

int MPI_Barrier(MPI_Comm comm) {
    collwire_comm *c = offload_comm(comm);
    if (!c)
        return PMPI_Barrier(comm);
    note("MPI_Barrier", 0, -1, -1);
    int s = collwire_barrier(c);
    return s == COLLWIRE_OK ? MPI_SUCCESS : failed(comm, "MPI_Barrier", s);
}

/* ----- non-blocking collectives -----
 * An offloaded MPI_Iallreduce, MPI_Ireduce, MPI_Iscan or MPI_Ibarrier returns a generalized request (a real MPI_Request the
 * application can pass anywhere). The intercepted completion calls drive the collwire request
 * and mark the generalized request complete, then let MPI finish it as usual. */

struct pending {
    MPI_Request mpi;
    collwire_comm *comm;
    collwire_request *req;
    MPI_Comm mpi_comm;
    const char *what;
    struct pending *next;
};
static struct pending *pending_list = NULL;

static int query_fn(void *extra, MPI_Status *status) {
    (void)extra;
    MPI_Status_set_elements(status, MPI_BYTE, 0);
    MPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_UNDEFINED;
    status->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}
static int free_fn(void *extra) {
    (void)extra;
    return MPI_SUCCESS;
}
static int cancel_fn(void *extra, int complete) {
    (void)extra;
    (void)complete;
    return MPI_SUCCESS;
}

/* Wraps a posted collwire request (post status `s`) in a generalized request the application
 * can pass to any completion call; a failed post is reported instead. */
static int start_pending(MPI_Comm comm, collwire_comm *c, const char *what, int s,
                         collwire_request *req, MPI_Request *request) {
    if (s != COLLWIRE_OK)
        return failed(comm, what, s);
    struct pending *p = calloc(1, sizeof *p);
    if (!p) {
        collwire_request *r = req;
        collwire_wait(c, &r);
        return failed(comm, what, COLLWIRE_ERR_INTERNAL);
    }
    PMPI_Grequest_start(query_fn, free_fn, cancel_fn, p, &p->mpi);
    p->comm = c;
    p->req = req;
    p->mpi_comm = comm;
    p->what = what;
    p->next = pending_list;
    pending_list = p;
    *request = p->mpi;
    return MPI_SUCCESS;
}

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm, MPI_Request *request) {
    int dt, o;
    collwire_comm *c = reduction_comm("MPI_Iallreduce", comm, datatype, op, count, &dt, &o);
    if (!c)
        return PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request);
    const void *send = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    collwire_request *req = NULL;
    int s = collwire_iallreduce(c, send, recvbuf, (size_t)count, dt, o, &req);
    return start_pending(comm, c, "MPI_Iallreduce", s, req, request);
}

int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm, MPI_Request *request) {
    int dt, o;
    collwire_comm *c = reduction_comm("MPI_Ireduce", comm, datatype, op, count, &dt, &o);
    if (!c)
        return PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, request);
    int rank;
    PMPI_Comm_rank(comm, &rank);
    const void *send = (sendbuf == MPI_IN_PLACE && rank == root) ? recvbuf : sendbuf;
    collwire_request *req = NULL;
    int s = collwire_ireduce(c, send, rank == root ? recvbuf : NULL, (size_t)count, dt, o, root,
                             &req);
    return start_pending(comm, c, "MPI_Ireduce", s, req, request);
}

int MPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, MPI_Request *request) {
    int dt, o;
    collwire_comm *c = reduction_comm("MPI_Iscan", comm, datatype, op, count, &dt, &o);
    if (!c)
        return PMPI_Iscan(sendbuf, recvbuf, count, datatype, op, comm, request);
    const void *send = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    collwire_request *req = NULL;
    int s = collwire_iscan(c, send, recvbuf, (size_t)count, dt, o, &req);
    return start_pending(comm, c, "MPI_Iscan", s, req, request);
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request) {
    collwire_comm *c = offload_comm(comm);
    if (!c)
        return PMPI_Ibarrier(comm, request);
    note("MPI_Ibarrier", 0, -1, -1);
    collwire_request *req = NULL;
    int s = collwire_ibarrier(c, &req);
    return start_pending(comm, c, "MPI_Ibarrier", s, req, request);
}

static struct pending *find_pending(MPI_Request r) {
    for (struct pending *p = pending_list; p; p = p->next)
        if (p->mpi == r && r != MPI_REQUEST_NULL)
            return p;
    return NULL;
}

static void forget(struct pending *gone) {
    for (struct pending **pp = &pending_list; *pp; pp = &(*pp)->next)
        if (*pp == gone) {
            *pp = gone->next;
            free(gone);
            return;
        }
}

/* Drives the offloaded request behind `r` (if any): blocking waits for it, otherwise one
 * poll. When it is done, the generalized request is completed so MPI can finish it. */
static int drive(MPI_Request r, int blocking) {
    struct pending *p = find_pending(r);
    if (!p)
        return MPI_SUCCESS;
    int s, flag = 1;
    if (blocking)
        s = collwire_wait(p->comm, &p->req);
    else
        s = collwire_test(p->comm, &p->req, &flag);
    if (s != COLLWIRE_OK) {
        MPI_Comm comm = p->mpi_comm;
        PMPI_Grequest_complete(p->mpi);
        const char *what = p->what;
        forget(p);
        return failed(comm, what, s);
    }
    if (flag) {
        PMPI_Grequest_complete(p->mpi);
        forget(p);
    }
    return MPI_SUCCESS;
}

static int drive_all(int n, MPI_Request *rs, int blocking) {
    int err = MPI_SUCCESS;
    if (!pending_list)
        return err;
    for (int i = 0; i < n; i++) {
        int e = drive(rs[i], blocking);
        if (e != MPI_SUCCESS)
            err = e;
    }
    return err;
}

int MPI_Wait(MPI_Request *request, MPI_Status *status) {
    int e = drive_all(1, request, 1);
    if (e != MPI_SUCCESS)
        return e;
    return PMPI_Wait(request, status);
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status) {
    int e = drive_all(1, request, 0);
    if (e != MPI_SUCCESS)
        return e;
    return PMPI_Test(request, flag, status);
}

int MPI_Waitall(int n, MPI_Request requests[], MPI_Status statuses[]) {
    int e = drive_all(n, requests, 1);
    if (e != MPI_SUCCESS)
        return e;
    return PMPI_Waitall(n, requests, statuses);
}

int MPI_Testall(int n, MPI_Request requests[], int *flag, MPI_Status statuses[]) {
    int e = drive_all(n, requests, 0);
    if (e != MPI_SUCCESS)
        return e;
    return PMPI_Testall(n, requests, flag, statuses);
}

/* Waitany/Waitsome: offloaded requests are polled first; if no other request can finish,
 * waiting for the offloaded ones is what lets the call return. */
int MPI_Waitany(int n, MPI_Request requests[], int *index, MPI_Status *status) {
    int e = drive_all(n, requests, 0);
    if (e != MPI_SUCCESS)
        return e;
    for (;;) {
        int flag = 0;
        e = PMPI_Testany(n, requests, index, &flag, status);
        if (e != MPI_SUCCESS || flag)
            return e;
        int ours = 0;
        for (int i = 0; i < n; i++)
            ours |= find_pending(requests[i]) != NULL;
        if (!ours)
            return PMPI_Waitany(n, requests, index, status);
        e = drive_all(n, requests, 0);
        if (e != MPI_SUCCESS)
            return e;
    }
}

int MPI_Testany(int n, MPI_Request requests[], int *index, int *flag, MPI_Status *status) {
    int e = drive_all(n, requests, 0);
    if (e != MPI_SUCCESS)
        return e;
    return PMPI_Testany(n, requests, index, flag, status);
}

int MPI_Waitsome(int n, MPI_Request requests[], int *outcount, int indices[],
                 MPI_Status statuses[]) {
    int e = drive_all(n, requests, 0);
    if (e != MPI_SUCCESS)
        return e;
    for (;;) {
        e = PMPI_Testsome(n, requests, outcount, indices, statuses);
        if (e != MPI_SUCCESS || *outcount != 0)
            return e;
        int ours = 0;
        for (int i = 0; i < n; i++)
            ours |= find_pending(requests[i]) != NULL;
        if (!ours)
            return PMPI_Waitsome(n, requests, outcount, indices, statuses);
        e = drive_all(n, requests, 0);
        if (e != MPI_SUCCESS)
            return e;
    }
}

int MPI_Testsome(int n, MPI_Request requests[], int *outcount, int indices[],
                 MPI_Status statuses[]) {
    int e = drive_all(n, requests, 0);
    if (e != MPI_SUCCESS)
        return e;
    return PMPI_Testsome(n, requests, outcount, indices, statuses);
}

/* How many calls this process offloaded (programs may look it up with dlsym). */
long collwire_pmpi_offloaded_calls(void) { return offloaded_calls; }

int MPI_Finalize(void) {
    if (verbose && enabled > 0)
        fprintf(stderr, "collwire-pmpi: rank %d offloaded %ld calls\n", world_rank(),
                offloaded_calls);
    return PMPI_Finalize();
}
