//! `wan-link LISTEN TARGET_PORT ONE_WAY_MS`: a WAN link as a process (the
//! one the edge tests use, `crm_tests::wan`), for benchmarks: connections
//! to LISTEN reach 127.0.0.1:TARGET_PORT with every chunk held ONE_WAY_MS
//! in each direction. Runs until killed.

use std::time::Duration;

use crm_tests::wan::Wan;

fn main() {
    let mut args = std::env::args().skip(1);
    let usage = "usage: wan-link LISTEN TARGET_PORT ONE_WAY_MS";
    let listen = args.next().expect(usage).parse().expect("LISTEN is an address, e.g. 127.0.0.1:18900");
    let target = args.next().expect(usage).parse().expect("TARGET_PORT is a port");
    let one_way = Duration::from_millis(args.next().expect(usage).parse().expect("ONE_WAY_MS is milliseconds"));
    let wan = Wan::listening_on(listen, target, one_way);
    println!("wan-link listening on 127.0.0.1:{} for port {target}, {one_way:?} each way", wan.port());
    loop {
        std::thread::park();
    }
}
