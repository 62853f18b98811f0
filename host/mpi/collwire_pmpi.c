/*
 * collwire_pmpi.c — the PMPI interposer: unmodified MPI applications offload their small
 * collectives to the collwire boards when this library is loaded with LD_PRELOAD.
 *
 * Intercepted: MPI_Allreduce, MPI_Reduce, MPI_Scan, MPI_Barrier, their non-blocking forms
 * MPI_Iallreduce, MPI_Ireduce, MPI_Iscan, MPI_Ibarrier, and, when the MPI library has the
 * MPI-4 large-count API (scripts/build-mpi defines COLLWIRE_LARGE_COUNT: MPICH 4, not Open MPI
 * 4.1), MPI_Allreduce_c, MPI_Reduce_c, MPI_Scan_c, MPI_Iallreduce_c, MPI_Ireduce_c and
 * MPI_Iscan_c. The int-count and MPI_Count forms share one code path (reduction(), with the
 * count as MPI_Count). Also intercepted: the completion calls (MPI_Wait, MPI_Test, MPI_Waitall,
 * MPI_Testall, MPI_Waitany, MPI_Testany, MPI_Waitsome, MPI_Testsome), so that an offloaded
 * non-blocking collective's request completes, and MPI_Finalize (verbose summary).
 *
 * A call is offloaded when all of these hold; otherwise it goes to the matching PMPI_ function
 * (PMPI_Allreduce_c for MPI_Allreduce_c, ...) with its arguments unchanged:
 *   - $COLLWIRE_CONFIG is set (it names the board map, e.g. collwire serve --write-config);
 *   - the communicator is MPI_COMM_WORLD or congruent to it (MILC runs on an MPI_Comm_dup of
 *     it), and every rank opened its collwire communicator (a rank that cannot prints why, once);
 *   - the datatype is MPI_INT/MPI_UNSIGNED/MPI_LONG(_LONG)/MPI_UNSIGNED_LONG(_LONG)/
 *     MPI_(U)INT32_T/MPI_(U)INT64_T/MPI_FLOAT/MPI_DOUBLE and the op is one collwire implements
 *     for it (floats: SUM, MIN, MAX; integers: also the bitwise and logical ops);
 *   - the count is positive and fits size_t; a reduce's root is a rank of the communicator;
 *   - the collwire post accepts it: COLLWIRE_ERR_UNSUPPORTED (the boards cannot run this call
 *     shape, e.g. too many segments for its count at the board map's MTU) means nothing was
 *     sent, and every rank gets the same answer for the same shape, so every rank falls back to
 *     MPI together. This holds for the blocking and the non-blocking forms.
 * MPI_IN_PLACE is handled. Any other failure of an offloaded call is not retried through MPI:
 * a post refused for another reason, or a failure reported only when the operation completes
 * (a board's refusal, a transport error), is printed with collwire's message and raised through
 * the communicator's error handler (MPI_ERR_OTHER), as MPI itself would. Once datagrams are
 * out, other ranks may already have their results from the boards, so one rank falling back
 * could leave the ranks on different paths.
 *
 * Environment: $COLLWIRE_CONFIG, the board map; without it every call is forwarded and rank 0
 * says so once. $COLLWIRE_PMPI_VERBOSE=1 (any value but empty or 0) prints one line per
 * decision on stderr, each distinct line once per process (up to 3072 distinct lines; new lines
 * after that print every time), e.g.
 *   collwire-pmpi: rank 2: MPI_Allreduce_c count 8 MPI_DOUBLE MPI_SUM on comm 4711 -> offloaded
 *   collwire-pmpi: rank 2: MPI_Allreduce count 3 MPI_INT MPI_PROD on comm 4711 -> MPI (MPI_PROD
 *     is not offloaded)
 * ("comm N" is the collwire communicator id), plus which collwire communicator each MPI
 * communicator got and, at MPI_Finalize, how many calls the rank offloaded. Without it the
 * library writes to stderr only that COLLWIRE_CONFIG notice and real failures (a rank that
 * cannot open its collwire communicator, once per process; a failed offloaded call).
 *
 * Each intercepted communicator gets its own collwire communicator id, agreed on by all its
 * ranks (a PMPI_Allreduce MAX at its first collective), so operations on MPI_COMM_WORLD and on
 * a duplicate never mix on the boards, and each job starts its ids at a random point so it does
 * not collide with the last job's.
 *
 * Built once per MPI library (their handle types differ: pointers in Open MPI, ints in
 * MPICH) by scripts/build-mpi.
 */
#include <mpi.h>
#include <stdarg.h>
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

/* What an intercepted call returns to its wrapper when the PMPI_ function must run it. MPI
 * error codes are never negative. */
#define FORWARD (-1)

struct comm_entry {
    collwire_comm *comm; /* NULL: this communicator is not offloaded */
    int id;              /* the collwire communicator id, when offloaded */
    const char *why_not; /* when not offloaded: why (a static string) */
};

static int world_rank(void) {
    int r = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

/* ----- verbose decisions ----- */

/* Hashes of the verbose lines already printed by this process (0: empty slot). Once the table
 * is three quarters full (3072 lines) nothing more is remembered, so later new lines print
 * every time. */
#define SEEN_SLOTS 4096
static uint64_t seen[SEEN_SLOTS];
static int seen_count = 0;

static int seen_before(const char *line) {
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (const char *p = line; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    if (h == 0)
        h = 1;
    size_t i = (size_t)(h % SEEN_SLOTS);
    while (seen[i]) {
        if (seen[i] == h)
            return 1;
        i = (i + 1) % SEEN_SLOTS;
    }
    if (seen_count < SEEN_SLOTS / 4 * 3) {
        seen[i] = h;
        seen_count++;
    }
    return 0;
}

/* Verbose only: "collwire-pmpi: rank R: <call> -> <outcome>", each distinct line once. */
static void decision(const char *call, const char *outcome_fmt, ...) {
    if (!verbose)
        return;
    char outcome[512], line[1024];
    va_list ap;
    va_start(ap, outcome_fmt);
    vsnprintf(outcome, sizeof outcome, outcome_fmt, ap);
    va_end(ap);
    snprintf(line, sizeof line, "%s -> %s", call, outcome);
    if (!seen_before(line))
        fprintf(stderr, "collwire-pmpi: rank %d: %s\n", world_rank(), line);
}

static const char *datatype_name(MPI_Datatype t, char name[MPI_MAX_OBJECT_NAME]) {
    if (t == MPI_DATATYPE_NULL)
        return "MPI_DATATYPE_NULL";
    int len = 0;
    name[0] = '\0';
    PMPI_Type_get_name(t, name, &len); /* predefined types are named after their MPI name */
    return len > 0 ? name : "an unnamed derived datatype";
}

static const char *op_name(MPI_Op op) {
#define OP_NAME(x)                                                                             \
    if (op == x)                                                                               \
        return #x;
    OP_NAME(MPI_SUM)
    OP_NAME(MPI_PROD)
    OP_NAME(MPI_MIN)
    OP_NAME(MPI_MAX)
    OP_NAME(MPI_BAND)
    OP_NAME(MPI_BOR)
    OP_NAME(MPI_BXOR)
    OP_NAME(MPI_LAND)
    OP_NAME(MPI_LOR)
    OP_NAME(MPI_LXOR)
    OP_NAME(MPI_MINLOC)
    OP_NAME(MPI_MAXLOC)
    OP_NAME(MPI_REPLACE)
    OP_NAME(MPI_NO_OP)
    OP_NAME(MPI_OP_NULL)
#undef OP_NAME
    return "a user-defined op";
}

/* ----- communicators ----- */

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

/* Opens the collwire side of a communicator congruent to MPI_COMM_WORLD: agrees on its id,
 * opens it, and keeps it only if every rank could (collective on `comm`). */
static void open_offload(MPI_Comm comm, struct comm_entry *e) {
    static int said_cannot_open = 0, said_not_everywhere = 0;
    int rank, size;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    int agreed = 0;
    PMPI_Allreduce(&next_comm_id, &agreed, 1, MPI_INT, MPI_MAX, comm);
    next_comm_id = agreed % 65535 + 1;
    collwire_comm *c = NULL;
    int failed_here = collwire_comm_open(NULL, rank, size, (uint16_t)agreed, &c) != COLLWIRE_OK;
    if (failed_here && !said_cannot_open) {
        said_cannot_open = 1; /* the same map, rank and size for every congruent communicator */
        fprintf(stderr, "collwire-pmpi: rank %d: cannot offload: %s\n", world_rank(),
                collwire_last_error());
    }
    int failed_somewhere = 0;
    PMPI_Allreduce(&failed_here, &failed_somewhere, 1, MPI_INT, MPI_MAX, comm);
    if (failed_somewhere) {
        collwire_comm_close(c);
        e->why_not = "a rank could not open its collwire communicator";
        if (rank == 0 && !said_not_everywhere) {
            said_not_everywhere = 1;
            fprintf(stderr, "collwire-pmpi: a rank could not open its collwire communicator; "
                            "collectives go to MPI\n");
        }
        return;
    }
    e->comm = c;
    e->id = agreed;
    if (verbose)
        fprintf(stderr, "collwire-pmpi: rank %d: a communicator of %d ranks -> collwire comm %d\n",
                world_rank(), size, agreed);
}

/* The entry of `comm` (its collwire communicator, or why it has none). Collective on `comm`
 * the first time: every intercepted collective calls it before looking at its other
 * arguments, so all ranks take the same path. */
static const struct comm_entry *offload_entry(MPI_Comm comm) {
    static const struct comm_entry no_config = {NULL, 0, "COLLWIRE_CONFIG is not set"};
    static const struct comm_entry null_comm = {NULL, 0, "MPI_COMM_NULL"};
    if (decide_enabled() < 0)
        return &no_config;
    if (comm == MPI_COMM_NULL)
        return &null_comm;
    if (keyval == MPI_KEYVAL_INVALID)
        PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_entry, &keyval, NULL);
    void *attr = NULL;
    int found = 0;
    PMPI_Comm_get_attr(comm, keyval, &attr, &found);
    if (found)
        return attr;

    struct comm_entry *e = calloc(1, sizeof *e);
    if (!e) {
        fprintf(stderr, "collwire-pmpi: out of memory\n");
        PMPI_Abort(comm, 1);
    }
    int inter = 0, result = MPI_UNEQUAL;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        e->why_not = "intercommunicator";
    else {
        PMPI_Comm_compare(comm, MPI_COMM_WORLD, &result);
        if (result == MPI_IDENT || result == MPI_CONGRUENT)
            open_offload(comm, e);
        else
            e->why_not = "communicator not congruent to MPI_COMM_WORLD";
    }
    PMPI_Comm_set_attr(comm, keyval, e);
    return e;
}

/* ----- the shared code of every intercepted collective ----- */

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

/* ----- non-blocking collectives -----
 * An offloaded non-blocking collective returns a generalized request (a real MPI_Request the
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

/* Completes a posted collwire request: a blocking call (request NULL) waits for it; a
 * non-blocking one wraps it in a generalized request the application can pass to any
 * completion call. */
static int finish(MPI_Comm comm, collwire_comm *c, const char *what, collwire_request *req,
                  MPI_Request *request) {
    if (!request) {
        int s = collwire_wait(c, &req);
        return s == COLLWIRE_OK ? MPI_SUCCESS : failed(comm, what, s);
    }
    struct pending *p = calloc(1, sizeof *p);
    if (!p) {
        collwire_wait(c, &req);
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

enum reduction_kind { ALLREDUCE, REDUCE, SCAN };

/* What a post (status `s`) leads to: the call goes to MPI when the boards cannot run it,
 * fails through the error handler on any other error, else completes (finish). */
static int posted(const char *call, const char *name, MPI_Comm comm, collwire_comm *c, int s,
                  collwire_request *req, MPI_Request *request) {
    if (s == COLLWIRE_ERR_UNSUPPORTED) {
        decision(call, "MPI (boards cannot run it: %s)", collwire_last_error());
        return FORWARD;
    }
    if (s != COLLWIRE_OK)
        return failed(comm, name, s);
    offloaded_calls++;
    decision(call, "offloaded");
    return finish(comm, c, name, req, request);
}

/* Every intercepted reduction (`name`: the MPI function, int-count or large-count, blocking
 * when `request` is NULL). Returns FORWARD when the call must go to the matching PMPI_
 * function unchanged, else the MPI return code of the offloaded call. */
static int reduction(const char *name, enum reduction_kind kind, const void *sendbuf,
                     void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root,
                     MPI_Comm comm, MPI_Request *request) {
    const struct comm_entry *e = offload_entry(comm); /* first: collective at first use */
    char call[256] = "", dt_buf[MPI_MAX_OBJECT_NAME];
    const char *dt_name = "", *o_name = "";
    if (verbose) {
        dt_name = datatype_name(datatype, dt_buf);
        o_name = op_name(op);
        int n = snprintf(call, sizeof call, "%s count %lld %s %s", name, (long long)count,
                         dt_name, o_name);
        if (kind == REDUCE && n >= 0 && (size_t)n < sizeof call)
            n += snprintf(call + n, sizeof call - (size_t)n, " root %d", root);
        if (e->comm && n >= 0 && (size_t)n < sizeof call)
            snprintf(call + n, sizeof call - (size_t)n, " on comm %d", e->id);
    }
    if (!e->comm) {
        decision(call, "MPI (%s)", e->why_not);
        return FORWARD;
    }
    int dt = map_datatype(datatype);
    if (dt < 0) {
        decision(call, "MPI (%s is not offloaded)", dt_name);
        return FORWARD;
    }
    int o = map_op(op, dt);
    if (o < 0) {
        if (map_op(op, COLLWIRE_INT32) >= 0)
            decision(call, "MPI (%s is not offloaded on %s)", o_name, dt_name);
        else
            decision(call, "MPI (%s is not offloaded)", o_name);
        return FORWARD;
    }
    if (count <= 0) {
        decision(call, "MPI (count %lld is not offloaded)", (long long)count);
        return FORWARD;
    }
    if ((MPI_Count)(size_t)count != count) {
        decision(call, "MPI (count does not fit size_t)");
        return FORWARD;
    }
    int rank, size;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    if (kind == REDUCE && (root < 0 || root >= size)) {
        decision(call, "MPI (root %d is not a rank of the communicator)", root);
        return FORWARD;
    }

    const void *send = sendbuf;
    void *recv = recvbuf;
    if (kind == REDUCE) {
        if (sendbuf == MPI_IN_PLACE && rank == root)
            send = recvbuf;
        if (rank != root)
            recv = NULL;
    } else if (sendbuf == MPI_IN_PLACE) {
        send = recvbuf;
    }
    collwire_request *req = NULL;
    int s;
    switch (kind) {
    case ALLREDUCE:
        s = collwire_iallreduce(e->comm, send, recv, (size_t)count, dt, o, &req);
        break;
    case REDUCE:
        s = collwire_ireduce(e->comm, send, recv, (size_t)count, dt, o, root, &req);
        break;
    default:
        s = collwire_iscan(e->comm, send, recv, (size_t)count, dt, o, &req);
        break;
    }
    return posted(call, name, comm, e->comm, s, req, request);
}

/* MPI_Barrier (request NULL) and MPI_Ibarrier, as reduction(). */
static int barrier(const char *name, MPI_Comm comm, MPI_Request *request) {
    const struct comm_entry *e = offload_entry(comm);
    char call[128] = "";
    if (verbose) {
        if (e->comm)
            snprintf(call, sizeof call, "%s on comm %d", name, e->id);
        else
            snprintf(call, sizeof call, "%s", name);
    }
    if (!e->comm) {
        decision(call, "MPI (%s)", e->why_not);
        return FORWARD;
    }
    collwire_request *req = NULL;
    int s = collwire_ibarrier(e->comm, &req);
    return posted(call, name, comm, e->comm, s, req, request);
}

/* ----- the intercepted collectives: each runs the shared code, or its PMPI_ function ----- */

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm) {
    int e = reduction("MPI_Allreduce", ALLREDUCE, sendbuf, recvbuf, count, datatype, op, 0, comm,
                      NULL);
    return e != FORWARD ? e : PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm) {
    int e = reduction("MPI_Reduce", REDUCE, sendbuf, recvbuf, count, datatype, op, root, comm,
                      NULL);
    return e != FORWARD ? e : PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm) {
    int e = reduction("MPI_Scan", SCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, NULL);
    return e != FORWARD ? e : PMPI_Scan(sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm, MPI_Request *request) {
    int e = reduction("MPI_Iallreduce", ALLREDUCE, sendbuf, recvbuf, count, datatype, op, 0,
                      comm, request);
    return e != FORWARD ? e
                        : PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request);
}

int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm, MPI_Request *request) {
    int e = reduction("MPI_Ireduce", REDUCE, sendbuf, recvbuf, count, datatype, op, root, comm,
                      request);
    return e != FORWARD
               ? e
               : PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, request);
}

int MPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, MPI_Request *request) {
    int e = reduction("MPI_Iscan", SCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, request);
    return e != FORWARD ? e : PMPI_Iscan(sendbuf, recvbuf, count, datatype, op, comm, request);
}

int MPI_Barrier(MPI_Comm comm) {
    int e = barrier("MPI_Barrier", comm, NULL);
    return e != FORWARD ? e : PMPI_Barrier(comm);
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request) {
    int e = barrier("MPI_Ibarrier", comm, request);
    return e != FORWARD ? e : PMPI_Ibarrier(comm, request);
}

#ifdef COLLWIRE_LARGE_COUNT
/* MPI-4 large-count forms (MPI_Count counts), compiled when the MPI library declares them. */

int MPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm) {
    int e = reduction("MPI_Allreduce_c", ALLREDUCE, sendbuf, recvbuf, count, datatype, op, 0,
                      comm, NULL);
    return e != FORWARD ? e : PMPI_Allreduce_c(sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op, int root, MPI_Comm comm) {
    int e = reduction("MPI_Reduce_c", REDUCE, sendbuf, recvbuf, count, datatype, op, root, comm,
                      NULL);
    return e != FORWARD ? e : PMPI_Reduce_c(sendbuf, recvbuf, count, datatype, op, root, comm);
}

int MPI_Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
               MPI_Op op, MPI_Comm comm) {
    int e = reduction("MPI_Scan_c", SCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, NULL);
    return e != FORWARD ? e : PMPI_Scan_c(sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Iallreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Request *request) {
    int e = reduction("MPI_Iallreduce_c", ALLREDUCE, sendbuf, recvbuf, count, datatype, op, 0,
                      comm, request);
    return e != FORWARD
               ? e
               : PMPI_Iallreduce_c(sendbuf, recvbuf, count, datatype, op, comm, request);
}

int MPI_Ireduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, int root, MPI_Comm comm, MPI_Request *request) {
    int e = reduction("MPI_Ireduce_c", REDUCE, sendbuf, recvbuf, count, datatype, op, root, comm,
                      request);
    return e != FORWARD
               ? e
               : PMPI_Ireduce_c(sendbuf, recvbuf, count, datatype, op, root, comm, request);
}

int MPI_Iscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm, MPI_Request *request) {
    int e = reduction("MPI_Iscan_c", SCAN, sendbuf, recvbuf, count, datatype, op, 0, comm,
                      request);
    return e != FORWARD ? e
                        : PMPI_Iscan_c(sendbuf, recvbuf, count, datatype, op, comm, request);
}
#endif /* COLLWIRE_LARGE_COUNT */

/* ----- completion calls ----- */

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
        fprintf(stderr, "collwire-pmpi: rank %d: offloaded %ld calls\n", world_rank(),
                offloaded_calls);
    return PMPI_Finalize();
}
