//! How a rank's datagrams reach its board.
//!
//! The driver speaks in UDP payloads (offload header + elements). A [`Transport`] carries them:
//! [`UdpTransport`] over a real socket — the production path, and also how separate processes
//! talk to `collwire serve` — while the simulator crate provides an in-process transport into a
//! simulated cluster for tests.

use std::io;
use std::net::{SocketAddr, ToSocketAddrs, UdpSocket};
use std::time::{Duration, Instant};

/// Why a transport could not send or receive.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("transport: {context}: {message}")]
pub struct TransportError {
    pub context: &'static str,
    pub kind: io::ErrorKind,
    pub message: String,
}

impl TransportError {
    pub fn io(context: &'static str, e: io::Error) -> TransportError {
        TransportError {
            context,
            kind: e.kind(),
            message: e.to_string(),
        }
    }
}

/// Carries one rank's datagrams to its board and the board's answers back.
pub trait Transport {
    /// Sends one datagram to the board.
    fn send(&mut self, datagram: &[u8]) -> Result<(), TransportError>;
    /// The next datagram for this rank, waiting at most `timeout` (`Duration::ZERO`: only what
    /// has already arrived). `Ok(None)` when nothing came.
    fn recv(&mut self, timeout: Duration) -> Result<Option<Vec<u8>>, TransportError>;
    /// The board this transport reaches, for messages ("board at udp 10.0.0.7:49169").
    fn describe(&self) -> String {
        "the board".to_string()
    }
    /// The clock the communicator's timers (retransmission, deadlines, liveness) run on:
    /// the wall clock for a real network, the simulated clock for a simulated cluster that
    /// is clocked in lockstep with its hosts (so a timer means the same number of board
    /// cycles however fast the simulator runs).
    fn now(&self) -> Instant {
        Instant::now()
    }
}

/// The receive buffer: larger than any datagram a board sends
/// ([`collwire_proto::limits::MAX_DATAGRAM`]), so an oversize one is seen whole and refused by
/// the parser instead of being truncated into something that parses.
const RECV_BUFFER: usize = 9216;
const _: () = assert!(RECV_BUFFER > collwire_proto::limits::MAX_DATAGRAM);

/// A UDP socket connected to the board's offload address: the board intercepts datagrams to
/// the offload port and answers from it, so a connected socket hears only its board.
///
/// The socket stays in blocking mode; a poll (`recv(Duration::ZERO)`) uses `MSG_DONTWAIT`, and
/// the read timeout is only reconfigured when it changes, so issuing and completing a call
/// costs one system call each way, not a mode switch per call.
#[derive(Debug)]
pub struct UdpTransport {
    socket: UdpSocket,
    /// The board's address (for messages).
    board: SocketAddr,
    /// The read timeout the socket has now.
    read_timeout: Option<Duration>,
    buf: Vec<u8>,
}

impl UdpTransport {
    /// Binds an ephemeral port on the interface that reaches `board` and connects to it.
    pub fn connect(board: impl ToSocketAddrs) -> Result<UdpTransport, TransportError> {
        let board: SocketAddr = board
            .to_socket_addrs()
            .map_err(|e| TransportError::io("resolve board address", e))?
            .next()
            .ok_or_else(|| {
                TransportError::io(
                    "resolve board address",
                    io::Error::new(io::ErrorKind::NotFound, "no address"),
                )
            })?;
        let local: SocketAddr = if board.is_ipv4() {
            "0.0.0.0:0".parse().unwrap()
        } else {
            "[::]:0".parse().unwrap()
        };
        let socket = UdpSocket::bind(local).map_err(|e| TransportError::io("bind", e))?;
        socket
            .connect(board)
            .map_err(|e| TransportError::io("connect", e))?;
        Ok(UdpTransport {
            socket,
            board,
            read_timeout: None,
            buf: vec![0; RECV_BUFFER],
        })
    }

    /// This rank's own address (where the board's responses go).
    pub fn local_addr(&self) -> Result<SocketAddr, TransportError> {
        self.socket
            .local_addr()
            .map_err(|e| TransportError::io("local address", e))
    }

    /// A socket error, naming the board; a refused one says what it means.
    fn refused(&self, context: &'static str, e: io::Error) -> TransportError {
        let mut err = TransportError::io(context, e);
        if err.kind == io::ErrorKind::ConnectionRefused {
            err.message = format!(
                "{}: nothing listens at {} (is the board, or collwire serve, running?)",
                err.message,
                self.describe()
            );
        }
        err
    }

    /// One datagram if one is queued, without blocking.
    fn poll(&mut self) -> io::Result<usize> {
        use std::os::fd::AsRawFd;
        // SAFETY: `buf` is valid for `buf.len()` bytes; the descriptor is this socket's.
        let n = unsafe {
            libc::recv(
                self.socket.as_raw_fd(),
                self.buf.as_mut_ptr().cast(),
                self.buf.len(),
                libc::MSG_DONTWAIT,
            )
        };
        if n < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(n as usize)
        }
    }
}

impl Transport for UdpTransport {
    fn describe(&self) -> String {
        format!("board at udp {}", self.board)
    }

    fn send(&mut self, datagram: &[u8]) -> Result<(), TransportError> {
        let result = self.socket.send(datagram);
        match result {
            Ok(n) if n == datagram.len() => Ok(()),
            Ok(n) => Err(TransportError::io(
                "send",
                io::Error::new(
                    io::ErrorKind::WriteZero,
                    format!("sent {n} of {} bytes", datagram.len()),
                ),
            )),
            Err(e) => Err(self.refused("send", e)),
        }
    }

    fn recv(&mut self, timeout: Duration) -> Result<Option<Vec<u8>>, TransportError> {
        let result = if timeout.is_zero() {
            self.poll()
        } else {
            if self.read_timeout != Some(timeout) {
                self.socket
                    .set_read_timeout(Some(timeout))
                    .map_err(|e| TransportError::io("configure socket", e))?;
                self.read_timeout = Some(timeout);
            }
            self.socket.recv(&mut self.buf)
        };
        match result {
            Ok(n) => Ok(Some(self.buf[..n].to_vec())),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                Ok(None)
            }
            // A connected UDP socket reports an ICMP port-unreachable from an earlier send as
            // a refused receive: the board (or `collwire serve`) is not there.
            Err(e) => Err(self.refused("receive", e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_board_nobody_listens_for_is_named_in_the_error() {
        // A port that was just free: nothing listens there.
        let port = UdpSocket::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut t = UdpTransport::connect(("127.0.0.1", port)).unwrap();
        t.send(&[0xc7; 22]).unwrap();
        let err = t.recv(Duration::from_secs(2)).unwrap_err();
        assert_eq!(err.kind, io::ErrorKind::ConnectionRefused, "{err}");
        let text = err.to_string();
        assert!(
            text.contains(&format!("nothing listens at board at udp 127.0.0.1:{port}")),
            "{text}"
        );
    }
}
