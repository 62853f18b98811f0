//! The C ABI from C: `collwire.h` compiles cleanly, every function it declares is exported by
//! `libcollwire.so` (and nothing else is), and a C program sees typed status codes — bad
//! arguments send nothing, a silent board ends in a timeout. (The successful paths run under
//! MPI in `mpi_e2e.rs`, where the PMPI library calls every function.)

use std::net::UdpSocket;
use std::process::Command;
use std::time::Duration;

mod common;
use common::{libcollwire_dir, repo};

#[test]
fn the_header_matches_the_library_exports() {
    let header = std::fs::read_to_string(repo().join("host/capi/include/collwire.h")).unwrap();
    let mut declared: Vec<String> = header
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| w.starts_with("collwire_") && !w.ends_with("_t"))
        .filter(|w| {
            ![
                "collwire_comm",
                "collwire_request",
                "collwire_status",
                "collwire_datatype",
                "collwire_op",
            ]
            .contains(w)
        })
        .map(String::from)
        .collect();
    declared.sort();
    declared.dedup();
    let nm = Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(libcollwire_dir().join("libcollwire.so"))
        .output()
        .expect("nm (binutils)");
    let mut exported: Vec<String> = String::from_utf8_lossy(&nm.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .filter(|s| s.starts_with("collwire_"))
        .map(String::from)
        .collect();
    exported.sort();
    assert_eq!(declared, exported);
    assert_eq!(declared.len(), 15, "{declared:?}");
}

#[test]
fn a_c_program_sees_typed_errors_and_bad_calls_send_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let lib = libcollwire_dir();
    let program = dir.path().join("abi_check");
    let cc = Command::new("cc")
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(repo().join("host/capi/include"))
        .arg(repo().join("host/capi/tests/abi_check.c"))
        .arg("-L")
        .arg(&lib)
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .args(["-lcollwire", "-o"])
        .arg(&program)
        .output()
        .unwrap();
    assert!(
        cc.status.success(),
        "{}",
        String::from_utf8_lossy(&cc.stderr)
    );

    // A "board" that receives but never answers.
    let board = UdpSocket::bind("127.0.0.1:0").unwrap();
    board
        .set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    let map = dir.path().join("map.toml");
    std::fs::write(
        &map,
        format!("boards = [\"{0}\", \"{0}\"]\n", board.local_addr().unwrap()),
    )
    .unwrap();
    let out = Command::new(&program).arg(&map).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("PASSED"), "{stdout}");
    let mut received = Vec::new();
    let mut buf = [0u8; 2048];
    while let Ok(n) = board.recv(&mut buf) {
        let (repr, _) = collwire_proto::OffloadRepr::from_datagram(&buf[..n]).unwrap();
        received.push(repr);
    }
    // The one valid call's request, then — at its deadline — the abort that gives the board
    // its context back; the bad calls sent nothing.
    let kinds: Vec<_> = received.iter().map(|r| r.msg_type).collect();
    assert_eq!(
        kinds,
        [
            collwire_proto::MessageType::Request,
            collwire_proto::MessageType::Abort
        ],
        "only the one valid call reached the board: {stdout}"
    );
    assert_eq!(
        (received[1].op_id, received[1].seg_index),
        (received[0].op_id, received[0].seg_index),
        "the abort names the request's segment"
    );
}
