//! Hardware in the loop: `collwire serve` runs the simulated boards, four separate
//! `collwire rank` processes talk to them over UDP on 127.0.0.1, and every rank's result bits
//! are compared with the golden model. Malformed and misdirected datagrams are logged and
//! change nothing; `collwire stats` and SIGUSR1 show every board's counters by name while it
//! runs; `--pcap` captures every frame (decoded in `tshark` with the project's dissector);
//! SIGINT stops the service cleanly with a summary.

use std::io::{BufRead, BufReader};
use std::net::UdpSocket;
use std::path::Path;
use std::process::{Child, Command, Stdio};

use collwire_driver::BoardMap;
use collwire_driver::element::to_bytes;
use collwire_proto::{Algorithm, Collective, Datatype, Layout, MessageType, OffloadRepr, ReduceOp};
use collwire_testbench::golden::{Spec, expected};

mod common;
use common::{Service, counter, exe};

fn rank_process(map: &Path, rank: usize, size: usize, values: &[f64]) -> Child {
    let values: Vec<String> = values.iter().map(|v| format!("{v:?}")).collect();
    Command::new(exe())
        .args(["rank", "--map"])
        .arg(map)
        .args(["--rank", &rank.to_string(), "--size", &size.to_string()])
        .args(["--datatype", "f64", "--op", "sum", "--repeat", "3"])
        .arg(format!("--values={}", values.join(",")))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn separate_rank_processes_get_golden_results_from_the_served_boards() {
    let dir = tempfile::tempdir().unwrap();
    let capture = dir.path().join("serve.pcapng");
    let service = Service::start(
        &dir.path().join("map.toml"),
        &[
            "--boards",
            "2",
            "--ranks-per-host",
            "2",
            "--pcap",
            capture.to_str().unwrap(),
        ],
    );
    let map = BoardMap::from_file(&service.map).unwrap();
    assert_eq!(map.boards.len(), 2);

    // Garbage and a request for the wrong board first: logged, dropped, nothing else changes.
    let junk = UdpSocket::bind("127.0.0.1:0").unwrap();
    junk.send_to(b"not an offload datagram", &map.boards[0])
        .unwrap();
    let stray = OffloadRepr {
        msg_type: MessageType::Request,
        op_id: 9,
        collective: Collective::Allreduce,
        algorithm: Algorithm::Ring,
        datatype: Datatype::F64,
        op: ReduceOp::Sum,
        comm_id: 99,
        comm_size: 4,
        rank: 3, // board 1's rank, sent to board 0
        root: 0,
        ranks_per_host: 2,
        attempt: 0,
        seg_index: 0,
        seg_count: 1,
        elem_count: 1,
    }
    .to_datagram(&[0; 8])
    .unwrap();
    junk.send_to(&stray, &map.boards[0]).unwrap();

    let size = 4;
    let inputs: Vec<Vec<f64>> = (0..size)
        .map(|r| {
            (0..5)
                .map(|i| ((r * 17 + i) as f64 * 0.37).cos() * 10f64.powi(i as i32 * 3 - 6))
                .collect()
        })
        .collect();
    let children: Vec<Child> = (0..size)
        .map(|r| rank_process(&service.map, r, size, &inputs[r]))
        .collect();
    let outputs: Vec<serde_json::Value> = children
        .into_iter()
        .map(|c| {
            let out = c.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "rank failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            serde_json::from_slice(&out.stdout).unwrap()
        })
        .collect();
    let spec = Spec {
        collective: Collective::Allreduce,
        algorithm: Algorithm::Ring,
        datatype: Datatype::F64,
        op: ReduceOp::Sum,
        layout: Layout::new(size as u16, 2).unwrap(),
        root: 0,
    };
    let golden = expected(
        &spec,
        &inputs.iter().map(|v| to_bytes(v)).collect::<Vec<_>>(),
    )
    .unwrap();
    for out in &outputs {
        let r = out["rank"].as_u64().unwrap() as usize;
        let bits: Vec<u64> = out["bits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| u64::from_str_radix(b.as_str().unwrap(), 16).unwrap())
            .collect();
        let want: Vec<u64> = golden[r]
            .as_ref()
            .unwrap()
            .chunks(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(bits, want, "rank {r}");
    }

    // `collwire stats` while it runs: every board's counters by name.
    let map = service.map.as_os_str();
    let out = common::collwire(&["stats".as_ref(), "--json".as_ref(), "--map".as_ref(), map]);
    let stats: serde_json::Value = serde_json::from_str(&out).unwrap();
    let boards = stats["boards"].as_array().unwrap();
    assert_eq!(boards.len(), 2);
    let names: Vec<&str> = boards[0]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row[0].as_str().unwrap())
        .collect();
    assert_eq!(names, collwire_sim::board::stat_names());
    let table = common::collwire(&["stats".as_ref(), "--map".as_ref(), map]);
    assert!(table.contains("board 0  board 1"), "{table}");
    // SIGUSR1: the same table on serve's standard output.
    let usr1 = Command::new("kill")
        .args(["-USR1", &service.pid().to_string()])
        .status()
        .unwrap();
    assert!(usr1.success());
    std::thread::sleep(std::time::Duration::from_millis(1500));

    let (status, stdout, stderr) = service.stop();
    assert!(
        status.success(),
        "serve exits 0 on SIGINT: {status:?}\n{stderr}"
    );
    assert!(stdout.contains("stopped after"), "{stdout}");
    // Printed on SIGUSR1 and at the stop: the stats snapshot's board counters, both times
    // (nothing ran in between).
    let offload: Vec<u64> = boards
        .iter()
        .map(|rows| {
            rows.as_array()
                .unwrap()
                .iter()
                .find(|row| row[0] == "offload_frames")
                .unwrap()[1]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert!(offload.iter().all(|&n| n >= 6), "{offload:?}");
    assert_eq!(
        common::counters_named(&stdout, "offload_frames"),
        [offload.clone(), offload].concat(),
        "{stdout}"
    );
    // The capture: every frame decodes in tshark exactly as the protocol reads it.
    let types = common::tshark::check_capture(&capture);
    for t in [
        MessageType::Request,
        MessageType::Partial,
        MessageType::Result,
        MessageType::Response,
    ] {
        assert!(types.contains(&t), "{t} in the capture: {types:?}");
    }
    assert!(stdout.contains("capture: "), "{stdout}");
    // 4 ranks × 3 calls; a slow-starting rank's peers may retransmit (and be acked).
    assert!(counter(&stdout, "requests in") >= 12, "{stdout}");
    assert_eq!(counter(&stdout, "responses out"), 12, "{stdout}");
    assert_eq!(
        counter(&stdout, "requests in") - 12,
        counter(&stdout, "acks out"),
        "every retransmission was acked: {stdout}"
    );
    assert_eq!(counter(&stdout, "malformed"), 1, "{stdout}");
    assert_eq!(counter(&stdout, "misdirected"), 1, "{stdout}");
    assert!(stderr.contains("malformed datagram (23 bytes)"), "{stderr}");
    assert!(
        stderr.contains("rank 3 of 4 (2 per host) sent to board 0"),
        "{stderr}"
    );
}

#[test]
fn serve_prints_where_it_listens_and_refuses_a_bad_cluster() {
    let dir = tempfile::tempdir().unwrap();
    let service = Service::start(&dir.path().join("map.toml"), &["--boards", "1"]);
    let (status, stdout, _) = service.stop();
    assert!(status.success());
    let listening = BufReader::new(stdout.as_bytes())
        .lines()
        .map_while(Result::ok)
        .filter(|l| l.contains("host port on udp 127.0.0.1:"))
        .count();
    assert_eq!(listening, 1, "{stdout}");

    let out = Command::new(exe())
        .args(["serve", "--boards", "0"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("boards"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
