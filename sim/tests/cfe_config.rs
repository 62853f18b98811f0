//! The CFE's configuration block through Verilator: every region of the address map
//! (`cfg`) written with random words reads back through its port one cycle after the address,
//! and a write to one region never shows in another.

use collwire_hdl::cfe::cfg;
use collwire_sim::fpu_check::SplitMix;
use collwire_sim::models::CfeConfig;

fn write(dut: &mut CfeConfig, addr: u16, data: u32) {
    dut.set_cfg_we(1);
    dut.set_cfg_addr(u64::from(addr));
    dut.set_cfg_data(u64::from(data));
    dut.tick();
    dut.set_cfg_we(0);
}

fn read(dut: &mut CfeConfig, uop: usize, dir: usize, route: usize) -> (u64, u64, u64) {
    dut.set_uop_addr(uop as u64);
    dut.set_dir_addr(dir as u64);
    dut.set_route_addr(route as u64);
    dut.tick();
    dut.eval();
    (dut.uop(), dut.dir_word(), dut.route_ports())
}

#[test]
fn every_region_reads_back_what_was_written() {
    let mut rng = SplitMix(99);
    let mut dut = CfeConfig::default();
    let program: Vec<u32> = (0..cfg::PROGRAM_WORDS)
        .map(|_| rng.next_u64() as u32)
        .collect();
    let directory: Vec<u32> = (0..cfg::DIRECTORY_ENTRIES)
        .map(|_| rng.next_u64() as u32)
        .collect();
    let route: Vec<u32> = (0..cfg::ROUTE_ENTRIES)
        .map(|_| rng.next_u64() as u32)
        .collect();
    for (i, w) in program.iter().enumerate() {
        write(&mut dut, cfg::PROGRAM + i as u16, *w);
    }
    for (i, w) in directory.iter().enumerate() {
        write(&mut dut, cfg::DIRECTORY + i as u16, *w);
    }
    for (i, w) in route.iter().enumerate() {
        write(&mut dut, cfg::ROUTE + i as u16, *w);
    }
    write(&mut dut, cfg::BOARD, 0xdead_be17);
    write(&mut dut, cfg::IP_PREFIX, 0x4433_0b0a);
    dut.eval();
    assert_eq!(dut.my_board(), 0x17);
    assert_eq!(dut.ip_prefix(), 0x33_0b0a, "the prefix is three bytes");
    for _ in 0..2000 {
        let (u, d, r) = (
            rng.next_u64() as usize % program.len(),
            rng.next_u64() as usize % directory.len(),
            rng.next_u64() as usize % route.len(),
        );
        let got = read(&mut dut, u, d, r);
        assert_eq!(
            got,
            (
                u64::from(program[u]),
                u64::from(directory[d]),
                u64::from(route[r] & 0xff)
            )
        );
    }
    // Writes outside every region (e.g. 0x1240..0x1300, above 0x1301) change nothing.
    for addr in [0x1240u16, 0x12ff, 0x1302, 0x2000, 0xffff] {
        write(&mut dut, addr, 0xffff_ffff);
    }
    for u in [0, 1, program.len() - 1] {
        assert_eq!(read(&mut dut, u, u % 512, u % 64).0, u64::from(program[u]));
    }
    for (d, word) in directory.iter().enumerate() {
        assert_eq!(
            read(&mut dut, 0, d, d % 64).1,
            u64::from(*word),
            "directory {d}"
        );
    }
    for (r, word) in route.iter().enumerate() {
        assert_eq!(
            read(&mut dut, 0, 0, r).2,
            u64::from(word & 0xff),
            "route {r}"
        );
    }
    assert_eq!(dut.my_board(), 0x17);
    assert_eq!(dut.ip_prefix(), 0x33_0b0a);
}
