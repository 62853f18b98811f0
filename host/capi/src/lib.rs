//! # collwire-capi — `libcollwire.so`, the driver for C, C++ and Fortran programs
//!
//! The functions declared in `include/collwire.h`. A communicator is opened from a board map
//! (`collwire serve --write-config`, or `$COLLWIRE_CONFIG`); calls mirror MPI's: blocking
//! `collwire_allreduce`, `_reduce`, `_scan`, `_barrier` and non-blocking `collwire_i*` returning
//! a request completed by `collwire_test` / `collwire_wait`.
//!
//! Every function returns a `collwire_status`; on failure `collwire_last_error()` gives the
//! message (per thread). Arguments are checked before anything is sent. No function panics
//! across the C boundary: a panic becomes `COLLWIRE_ERR_INTERNAL`.

use std::cell::RefCell;
use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::time::Duration;

use collwire_driver::{BoardMap, ConfigError, DriverError, OffloadComm, Request, UdpTransport};
use collwire_proto::{Collective, Datatype, ReduceOp};

/// Return codes (`collwire_status` in the header).
pub const COLLWIRE_OK: c_int = 0;
/// A bad argument: null pointer, datatype/op pair, root, count. Nothing was sent.
pub const COLLWIRE_ERR_ARG: c_int = 1;
/// The board map could not be read or does not fit the communicator.
pub const COLLWIRE_ERR_CONFIG: c_int = 2;
/// The operation did not complete before its deadline.
pub const COLLWIRE_ERR_TIMEOUT: c_int = 3;
/// The board refused the operation (error frame).
pub const COLLWIRE_ERR_REFUSED: c_int = 4;
/// The socket failed.
pub const COLLWIRE_ERR_TRANSPORT: c_int = 5;
/// A bug: please report it with `collwire_last_error()`.
pub const COLLWIRE_ERR_INTERNAL: c_int = 6;
/// The boards cannot run this call shape (nothing sent, or the board answered unsupported).
pub const COLLWIRE_ERR_UNSUPPORTED: c_int = 7;

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_error(message: String) {
    let c = CString::new(message.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = c);
}

fn status_of(e: &DriverError) -> c_int {
    if e.is_unsupported() {
        return COLLWIRE_ERR_UNSUPPORTED;
    }
    match e {
        DriverError::Timeout { .. } => COLLWIRE_ERR_TIMEOUT,
        DriverError::Refused { .. } => COLLWIRE_ERR_REFUSED,
        DriverError::Transport(_) | DriverError::Unreachable { .. } => COLLWIRE_ERR_TRANSPORT,
        DriverError::Foreign(_) => COLLWIRE_ERR_INTERNAL,
        _ => COLLWIRE_ERR_ARG,
    }
}

/// Runs `f`, turning its error or a panic into a status and a last-error message.
fn guard(f: impl FnOnce() -> Result<(), (c_int, String)>) -> c_int {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => COLLWIRE_OK,
        Ok(Err((status, message))) => {
            set_error(message);
            status
        }
        Err(_) => {
            set_error("internal error (panic) in libcollwire".into());
            COLLWIRE_ERR_INTERNAL
        }
    }
}

fn driver(e: DriverError) -> (c_int, String) {
    (status_of(&e), e.to_string())
}

fn arg(message: impl Into<String>) -> (c_int, String) {
    (COLLWIRE_ERR_ARG, message.into())
}

/// An open communicator (opaque in C).
pub struct CollwireComm {
    comm: OffloadComm<UdpTransport>,
}

/// A posted non-blocking operation (opaque in C): where its result goes.
pub struct CollwireRequest {
    request: Request,
    recv: *mut u8,
    recv_len: usize,
}

fn datatype(code: c_int) -> Result<Datatype, (c_int, String)> {
    u8::try_from(code)
        .ok()
        .and_then(|c| Datatype::from_code(c).ok())
        .filter(|d| d.is_supported())
        .ok_or_else(|| arg(format!("unknown datatype code {code}")))
}

fn op(code: c_int) -> Result<ReduceOp, (c_int, String)> {
    u8::try_from(code)
        .ok()
        .and_then(|c| ReduceOp::from_code(c).ok())
        .filter(|o| o.is_supported())
        .ok_or_else(|| arg(format!("unknown reduction op code {code}")))
}

fn comm_mut<'a>(comm: *mut CollwireComm) -> Result<&'a mut CollwireComm, (c_int, String)> {
    // SAFETY: the caller passes a pointer from collwire_comm_open that it has not closed.
    unsafe { comm.as_mut() }.ok_or_else(|| arg("communicator is NULL"))
}

/// Opens rank `rank` of a communicator of `size` ranks with id `comm_id` (every rank of one
/// communicator uses the same id; distinct communicators use distinct ids). `config_path`
/// NULL means `$COLLWIRE_CONFIG`.
///
/// # Safety
/// `config_path` is NULL or a NUL-terminated string; `out` is a valid pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collwire_comm_open(
    config_path: *const c_char,
    rank: c_int,
    size: c_int,
    comm_id: u16,
    out: *mut *mut CollwireComm,
) -> c_int {
    guard(|| {
        if out.is_null() {
            return Err(arg("out is NULL"));
        }
        let path = if config_path.is_null() {
            std::env::var_os("COLLWIRE_CONFIG")
                .map(PathBuf::from)
                .ok_or((
                    COLLWIRE_ERR_CONFIG,
                    "no board map: config_path is NULL and COLLWIRE_CONFIG is not set".to_string(),
                ))?
        } else {
            // SAFETY: checked non-null; the caller promises a NUL-terminated string.
            let s = unsafe { CStr::from_ptr(config_path) };
            PathBuf::from(s.to_str().map_err(|_| arg("config path is not UTF-8"))?)
        };
        let (rank, size) = match (usize::try_from(rank), usize::try_from(size)) {
            (Ok(r), Ok(s)) => (r, s),
            _ => return Err(arg(format!("rank {rank} / size {size} negative"))),
        };
        let map = BoardMap::from_file(&path).map_err(config)?;
        let comm = map.open(rank, size, comm_id).map_err(config)?;
        // SAFETY: checked non-null.
        unsafe { *out = Box::into_raw(Box::new(CollwireComm { comm })) };
        Ok(())
    })
}

fn config(e: ConfigError) -> (c_int, String) {
    match e {
        ConfigError::Driver(d) => driver(d),
        other => (COLLWIRE_ERR_CONFIG, other.to_string()),
    }
}

/// Closes a communicator (NULL is ignored). Requests still posted on it are abandoned.
///
/// # Safety
/// `comm` is NULL or from `collwire_comm_open`, and not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collwire_comm_close(comm: *mut CollwireComm) {
    if !comm.is_null() {
        // SAFETY: the caller gives back ownership.
        drop(unsafe { Box::from_raw(comm) });
    }
}

/// Sets a fail-fast deadline for this communicator's operations, in milliseconds from post
/// (0: none, wait like MPI — the default unless the board map sets `timeout_ms`).
///
/// # Safety
/// `comm` is from `collwire_comm_open`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collwire_comm_set_timeout_ms(
    comm: *mut CollwireComm,
    milliseconds: u64,
) -> c_int {
    guard(|| {
        comm_mut(comm)?
            .comm
            .set_timeout((milliseconds > 0).then(|| Duration::from_millis(milliseconds)));
        Ok(())
    })
}

/// The message of this thread's last failed call ("" if none). Valid until the next call.
#[unsafe(no_mangle)]
pub extern "C" fn collwire_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// Posts one collective; the result goes to `recv` when the request completes.
///
/// # Safety
/// `send` holds `count` elements (may be NULL when `count` is 0), `recv` has room for `count`
/// elements and stays valid until completion (may be NULL on a reduce's non-root ranks).
#[allow(clippy::too_many_arguments)]
unsafe fn post(
    comm: *mut CollwireComm,
    collective: Collective,
    send: *const c_void,
    recv: *mut c_void,
    count: usize,
    dt: c_int,
    op_code: c_int,
    root: c_int,
) -> Result<Box<CollwireRequest>, (c_int, String)> {
    let c = comm_mut(comm)?;
    let datatype = datatype(dt)?;
    let op = op(op_code)?;
    let root = usize::try_from(root).map_err(|_| arg(format!("root {root} negative")))?;
    let bytes = count
        .checked_mul(datatype.size())
        .ok_or_else(|| arg("count overflows"))?;
    if bytes > 0 && send.is_null() {
        return Err(arg("send buffer is NULL"));
    }
    let needs_recv = match collective {
        Collective::Reduce => c.comm.rank() == root,
        Collective::Barrier => false,
        _ => true,
    };
    if needs_recv && bytes > 0 && recv.is_null() {
        return Err(arg("receive buffer is NULL"));
    }
    let send = if bytes == 0 {
        &[][..]
    } else {
        // SAFETY: the caller promises `count` elements at `send`; copied before returning, so
        // `send == recv` (in place) is fine.
        unsafe { std::slice::from_raw_parts(send.cast::<u8>(), bytes) }
    };
    let request = c
        .comm
        .post_bytes(collective, datatype, op, root, send)
        .map_err(driver)?;
    Ok(Box::new(CollwireRequest {
        request,
        recv: recv.cast(),
        recv_len: bytes,
    }))
}

/// Waits for a posted request and writes its result.
fn complete(c: &mut CollwireComm, r: CollwireRequest) -> Result<(), (c_int, String)> {
    let CollwireRequest {
        request,
        recv,
        recv_len,
    } = r;
    let result = c.comm.wait_bytes(request).map_err(driver)?;
    if result.is_empty() {
        return Ok(());
    }
    if result.len() != recv_len || recv.is_null() {
        return Err((
            COLLWIRE_ERR_INTERNAL,
            format!(
                "result of {} bytes for a {recv_len}-byte buffer",
                result.len()
            ),
        ));
    }
    // SAFETY: the caller promised `recv_len` writable bytes at `recv` until completion.
    unsafe { std::ptr::copy_nonoverlapping(result.as_ptr(), recv, recv_len) };
    Ok(())
}

macro_rules! blocking {
    ($(#[$doc:meta])* $name:ident, $collective:expr, root) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// As for the non-blocking form; buffers need only be valid during the call.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name(
            comm: *mut CollwireComm,
            send: *const c_void,
            recv: *mut c_void,
            count: usize,
            datatype: c_int,
            op: c_int,
            root: c_int,
        ) -> c_int {
            guard(|| {
                // SAFETY: forwarded caller promises.
                let r = unsafe { post(comm, $collective, send, recv, count, datatype, op, root) }?;
                complete(comm_mut(comm)?, *r)
            })
        }
    };
    ($(#[$doc:meta])* $name:ident, $collective:expr) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// As for the non-blocking form; buffers need only be valid during the call.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name(
            comm: *mut CollwireComm,
            send: *const c_void,
            recv: *mut c_void,
            count: usize,
            datatype: c_int,
            op: c_int,
        ) -> c_int {
            guard(|| {
                // SAFETY: forwarded caller promises.
                let r = unsafe { post(comm, $collective, send, recv, count, datatype, op, 0) }?;
                complete(comm_mut(comm)?, *r)
            })
        }
    };
}

macro_rules! nonblocking {
    ($(#[$doc:meta])* $name:ident, $collective:expr, root) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// `send` holds `count` elements; `recv` has room for `count` and stays valid until
        /// `collwire_test` reports completion or `collwire_wait` returns; `request` is valid.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name(
            comm: *mut CollwireComm,
            send: *const c_void,
            recv: *mut c_void,
            count: usize,
            datatype: c_int,
            op: c_int,
            root: c_int,
            request: *mut *mut CollwireRequest,
        ) -> c_int {
            guard(|| {
                if request.is_null() {
                    return Err(arg("request is NULL"));
                }
                // SAFETY: forwarded caller promises.
                let r = unsafe { post(comm, $collective, send, recv, count, datatype, op, root) }?;
                // SAFETY: checked non-null.
                unsafe { *request = Box::into_raw(r) };
                Ok(())
            })
        }
    };
    ($(#[$doc:meta])* $name:ident, $collective:expr) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// `send` holds `count` elements; `recv` has room for `count` and stays valid until
        /// `collwire_test` reports completion or `collwire_wait` returns; `request` is valid.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name(
            comm: *mut CollwireComm,
            send: *const c_void,
            recv: *mut c_void,
            count: usize,
            datatype: c_int,
            op: c_int,
            request: *mut *mut CollwireRequest,
        ) -> c_int {
            guard(|| {
                if request.is_null() {
                    return Err(arg("request is NULL"));
                }
                // SAFETY: forwarded caller promises.
                let r = unsafe { post(comm, $collective, send, recv, count, datatype, op, 0) }?;
                // SAFETY: checked non-null.
                unsafe { *request = Box::into_raw(r) };
                Ok(())
            })
        }
    };
}

blocking!(
    /// Every rank gets the reduction of all ranks' `send`. `send == recv` is the in-place form.
    collwire_allreduce,
    Collective::Allreduce
);
blocking!(
    /// Rank `root` gets the reduction in `recv`; other ranks' `recv` is untouched (may be NULL).
    collwire_reduce,
    Collective::Reduce,
    root
);
blocking!(
    /// Inclusive prefix reduction: rank r gets the reduction of ranks 0..=r.
    collwire_scan,
    Collective::Scan
);
nonblocking!(
    /// Non-blocking `collwire_allreduce`.
    collwire_iallreduce,
    Collective::Allreduce
);
nonblocking!(
    /// Non-blocking `collwire_reduce`.
    collwire_ireduce,
    Collective::Reduce,
    root
);
nonblocking!(
    /// Non-blocking `collwire_scan`.
    collwire_iscan,
    Collective::Scan
);

/// Posts a barrier (no buffers).
fn barrier_request(comm: *mut CollwireComm) -> Result<Box<CollwireRequest>, (c_int, String)> {
    // SAFETY: a barrier reads and writes no buffer.
    unsafe {
        post(
            comm,
            Collective::Barrier,
            std::ptr::null(),
            std::ptr::null_mut(),
            0,
            0,
            0,
            0,
        )
    }
}

/// Returns when every rank of the communicator has entered the barrier.
///
/// # Safety
/// `comm` is from `collwire_comm_open`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collwire_barrier(comm: *mut CollwireComm) -> c_int {
    guard(|| {
        let r = barrier_request(comm)?;
        complete(comm_mut(comm)?, *r)
    })
}

/// Non-blocking barrier.
///
/// # Safety
/// `comm` is from `collwire_comm_open`; `request` is valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collwire_ibarrier(
    comm: *mut CollwireComm,
    request: *mut *mut CollwireRequest,
) -> c_int {
    guard(|| {
        if request.is_null() {
            return Err(arg("request is NULL"));
        }
        let r = barrier_request(comm)?;
        // SAFETY: checked non-null.
        unsafe { *request = Box::into_raw(r) };
        Ok(())
    })
}

/// Sets `*flag` to 1 and completes the request (writing the result, freeing the request) when
/// it is done; otherwise sets `*flag` to 0 and returns at once. A request that failed is freed
/// too, with its error returned.
///
/// # Safety
/// `comm` is the request's communicator; `*request` is a posted request or NULL; `flag` valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collwire_test(
    comm: *mut CollwireComm,
    request: *mut *mut CollwireRequest,
    flag: *mut c_int,
) -> c_int {
    guard(|| {
        if request.is_null() || flag.is_null() {
            return Err(arg("request or flag is NULL"));
        }
        // SAFETY: checked non-null.
        let (slot, flag) = unsafe { (&mut *request, &mut *flag) };
        if slot.is_null() {
            // Like MPI_REQUEST_NULL: nothing to do.
            *flag = 1;
            return Ok(());
        }
        let c = comm_mut(comm)?;
        // SAFETY: a request pointer from a collwire_i* call, not yet completed.
        let done = c.comm.test(&unsafe { &**slot }.request);
        *flag = 0;
        match done {
            Ok(false) => Ok(()),
            Ok(true) | Err(_) => {
                // SAFETY: ownership comes back; the slot is cleared like MPI does.
                let r = unsafe { Box::from_raw(*slot) };
                *slot = std::ptr::null_mut();
                *flag = 1;
                done.map_err(driver)?;
                complete(c, *r)
            }
        }
    })
}

/// Waits for the request, writes its result, frees it and sets `*request` to NULL.
///
/// # Safety
/// `comm` is the request's communicator; `*request` is a posted request or NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collwire_wait(
    comm: *mut CollwireComm,
    request: *mut *mut CollwireRequest,
) -> c_int {
    guard(|| {
        if request.is_null() {
            return Err(arg("request is NULL"));
        }
        // SAFETY: checked non-null.
        let slot = unsafe { &mut *request };
        if slot.is_null() {
            return Ok(());
        }
        let c = comm_mut(comm)?;
        // SAFETY: ownership comes back; the slot is cleared.
        let r = unsafe { Box::from_raw(*slot) };
        *slot = std::ptr::null_mut();
        complete(c, *r)
    })
}

/// The rank and size the communicator was opened with.
///
/// # Safety
/// `comm` is from `collwire_comm_open`; `rank` and `size` are NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn collwire_comm_rank_size(
    comm: *mut CollwireComm,
    rank: *mut c_int,
    size: *mut c_int,
) -> c_int {
    guard(|| {
        let c = comm_mut(comm)?;
        // SAFETY: each pointer is NULL or valid.
        unsafe {
            if let Some(r) = rank.as_mut() {
                *r = c.comm.rank() as c_int;
            }
            if let Some(s) = size.as_mut() {
                *s = c.comm.size() as c_int;
            }
        }
        Ok(())
    })
}
