//! The long history of finished segments: the last [`HISTORY_KEYS`] keys filed (completed,
//! aborted, reclaimed), in block RAM, behind the context table's eight recent keys. A request
//! or board frame for a segment finished long ago is recognised (`late`: dropped, or answered
//! `stale`) instead of opening a context and running the segment again.
//!
//! [`SETS`] sets of [`WAYS`] keys. A key's set is the low [`SET_BITS`] bits of the XOR of its
//! communicator, operation and segment (consecutive operations fall in consecutive sets); within a set the
//! oldest key makes room (a per-set pointer, in block RAM too). So one communicator's last
//! 1,024 single-segment operations are all remembered; keys of many communicators share the
//! room.
//!
//! Block RAM reads are synchronous, so a lookup is asked two clocks ahead: `peek` is the key
//! looked up two clocks later (the engine drives it from the arrival waiting at its input: it
//! takes it the next clock into `lookup` and judges it the clock after). The clock after
//! `peek`, each way's word is compared with it a byte at a time (two LUT levels behind the
//! block RAM's output, four two-bit compares and their AND: the RAM's clock-to-output and the
//! route from it to a whole 49-bit compare were board64's worst path) and the 7 answers
//! registered, and `peek_q == key` registered too; the clock after that, `seen` ANDs them, two
//! levels (with the 25 two-bit answers of before, four levels and two long routes from the
//! RAM's corner to the CFE's verdict were board64's worst path at 4678cb8, seed 2): `key`'s answer, low unless `key` was the
//! `peek` of two clocks ago and already `key` a clock ago. (A whole compare there, of the
//! registered words with the engine's `key`, was the CFE's worst path.) It stays right while
//! `peek` and `key` stay on the key.
//!
//! Filing takes four clocks: the key is registered (the engine's state decides to file, and
//! the set's address should start at a flip-flop), the set's pointer is read, then the pointer
//! advanced and the way it pointed to registered, then the key written into that way. (The
//! way's write enables straight from the pointer RAM's output were board64's worst path.) The
//! advanced pointer is written into its RAM in the fourth clock, from flip-flops (written in
//! the third, the RAM's output ran through the forwarding select into its own write data:
//! board64's worst path at 674f50f, seed 1). A file to the same set one or two clocks later
//! uses the advanced pointer (forwarded: of two, the more recent file's), not the RAM's stale word.
//! A key is in the ways five clocks after it was filed
//! (seen from a `peek` two clocks later): the context table's recent keys cover it until then.
//!
//! After power-on and after `reset` the block sweeps its RAMs (one set a clock, [`SETS`]
//! clocks): meanwhile `sweeping` is high, nothing is `seen` and files are not kept. So no
//! answer depends on the RAMs' power-up contents, and `reset` forgets the history.

use rust_hdl::prelude::*;

/// Sets (a power of two: the set index is [`SET_BITS`] bits).
pub const SETS: usize = 512;
pub const SET_BITS: usize = 9;
/// Keys per set. (Each way is one block RAM of 512 49-bit words, a RAMB36 on 7-series: two
/// ways of 512 sets take half the block RAM of four of 256 for the same 1,024 keys.)
pub const WAYS: usize = 2;
/// Keys remembered.
pub const HISTORY_KEYS: usize = SETS * WAYS;

/// The set of `key` (communicator << 32 | operation << 16 | segment): the low [`SET_BITS`] bits
/// of the XOR of the three fields. The hardware computes the same.
pub fn set_of(key: u64) -> usize {
    ((key ^ (key >> 16) ^ (key >> 32)) & (SETS as u64 - 1)) as usize
}

#[derive(LogicBlock)]
pub struct KeyHistory {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// The key looked up two clocks later.
    pub peek: Signal<In, Bits<48>>,
    /// The key looked up this clock.
    pub key: Signal<In, Bits<48>>,
    /// `key` is one of the keys remembered (and `peek` two clocks ago was `key`).
    pub seen: Signal<Out, Bit>,
    /// File `file_key` this clock.
    pub file: Signal<In, Bit>,
    pub file_key: Signal<In, Bits<48>>,
    /// The RAMs are being swept (after power-on or reset): nothing is seen or kept.
    pub sweeping: Signal<Out, Bit>,
    /// The key filed the clock before (`staged`) and that key (`staged_key`): the first
    /// filing clock's flip-flops. The context table's recent keys take each filed key from
    /// here, a clock after the file, so `file_key` (a select behind the engine's commands)
    /// drives one register, not this block's and every recent-key slot's inputs.
    pub staged: Signal<Out, Bit>,
    pub staged_key: Signal<Out, Bits<48>>,
    /// Per way: a valid bit over the 48-bit key.
    ways: [RAM<Bits<49>, SET_BITS>; 2],
    /// Per set: the way the next key goes to.
    ptr: RAM<Bits<1>, SET_BITS>,
    /// `peek` a clock ago: the key whose set's words the RAMs give now.
    peek_q: DFF<Bits<48>>,
    /// Per way, the word read for `peek_q` equal to it (valid bit set), eight bits at a time:
    /// bit `g` compares bits `8g` … `8g + 7` (two LUT levels behind the RAM's output, four
    /// two-bit compares and their AND, so `seen` is two levels deep, not four).
    eq_q: [DFF<Bits<7>>; 2],
    /// The RAMs were swept when the `peek` of two clocks ago was read, and `peek_q == key`
    /// (the key looked up now was the one read for), registered as one flip-flop.
    gate_q: DFF<Bit>,
    /// The word a way holds for `peek_q` if `peek_q` is in it: the valid bit over the key.
    want: Signal<Local, Bits<56>>,
    /// Each way's word read, padded to 56 bits (seven whole bytes).
    word: [Signal<Local, Bits<56>>; 2],
    /// The RAMs were swept when the `peek` of a clock ago was read.
    ok_q: DFF<Bit>,
    /// Low from power-on and from reset until the sweep is done.
    swept: DFF<Bit>,
    sweep_set: DFF<Bits<SET_BITS>>,
    /// Filing, first clock: the key registered.
    i_valid: DFF<Bit>,
    i_key: DFF<Bits<48>>,
    /// Filing, second clock: the key and its set (the set's pointer is being read).
    f_valid: DFF<Bit>,
    f_key: DFF<Bits<48>>,
    f_set: DFF<Bits<SET_BITS>>,
    /// The file before, for forwarding: its set and the pointer it left.
    l_valid: DFF<Bit>,
    l_set: DFF<Bits<SET_BITS>>,
    l_ptr: DFF<Bits<1>>,
    /// The file before that (its pointer is written into the RAM in the clock the RAM is
    /// read for the file now: the read gives the old word).
    l2_valid: DFF<Bit>,
    l2_set: DFF<Bits<SET_BITS>>,
    l2_ptr: DFF<Bits<1>>,
    /// Filing, fourth clock: the key, its set and its way (written now).
    w_valid: DFF<Bit>,
    w_key: DFF<Bits<48>>,
    w_set: DFF<Bits<SET_BITS>>,
    w_way: DFF<Bits<1>>,
    way_index: [Constant<Bits<1>>; 2],
    last_set: Constant<Bits<SET_BITS>>,
    peek_set: Signal<Local, Bits<SET_BITS>>,
    file_set: Signal<Local, Bits<SET_BITS>>,
    /// The way the key in the second filing clock goes to.
    f_way: Signal<Local, Bits<1>>,
    l_seen: Signal<Local, Bit>,
}

impl Default for KeyHistory {
    fn default() -> Self {
        assert_eq!(SETS, 1 << SET_BITS);
        assert_eq!(WAYS, 2);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            peek: Default::default(),
            key: Default::default(),
            seen: Default::default(),
            file: Default::default(),
            file_key: Default::default(),
            sweeping: Default::default(),
            staged: Default::default(),
            staged_key: Default::default(),
            ways: Default::default(),
            ptr: Default::default(),
            peek_q: Default::default(),
            eq_q: Default::default(),
            gate_q: Default::default(),
            want: Default::default(),
            word: Default::default(),
            ok_q: Default::default(),
            swept: Default::default(),
            sweep_set: Default::default(),
            i_valid: Default::default(),
            i_key: Default::default(),
            f_valid: Default::default(),
            f_key: Default::default(),
            f_set: Default::default(),
            l_valid: Default::default(),
            l_set: Default::default(),
            l_ptr: Default::default(),
            l2_valid: Default::default(),
            l2_set: Default::default(),
            l2_ptr: Default::default(),
            w_valid: Default::default(),
            w_key: Default::default(),
            w_set: Default::default(),
            w_way: Default::default(),
            way_index: std::array::from_fn(|w| Constant::new(bits(w as u64))),
            last_set: Constant::new(bits(SETS as u64 - 1)),
            peek_set: Default::default(),
            file_set: Default::default(),
            f_way: Default::default(),
            l_seen: Default::default(),
        }
    }
}

impl Logic for KeyHistory {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, peek_q, gate_q, ok_q, swept, sweep_set, i_valid, i_key, f_valid, f_key,
            f_set, l_valid, l_set, l_ptr, l2_valid, l2_set, l2_ptr, w_valid, w_key, w_set, w_way
        );
        // Set of a key: communicator, operation and segment XORed, the low SET_BITS bits.
        self.peek_set.next = bit_cast::<SET_BITS, 48>(
            self.peek.val() ^ (self.peek.val() >> 16) ^ (self.peek.val() >> 32),
        );
        self.file_set.next = bit_cast::<SET_BITS, 48>(
            self.i_key.q.val() ^ (self.i_key.q.val() >> 16) ^ (self.i_key.q.val() >> 32),
        );
        self.peek_q.d.next = self.peek.val();
        // Words read after the sweep only (a set read in the sweep's last clock is not yet
        // cleared).
        self.ok_q.d.next = self.swept.q.val();

        // Lookup: every way of `peek`'s set is read; the next clock each word is compared
        // with `peek_q` a byte at a time and the answers registered; the clock after, a way
        // holds the key if all 7 are equal. (`want` is 56 bits, the 49 and a zero pad, so
        // that every byte is whole.)
        self.want.next = bit_cast::<56, 48>(self.peek_q.q.val()) | bits::<56>(1 << 48);
        self.l_seen.next = false;
        for w in 0..2 {
            self.ways[w].read_clock.next = self.clock.val();
            self.ways[w].write_clock.next = self.clock.val();
            self.ways[w].read_address.next = self.peek_set.val();
            self.eq_q[w].clock.next = self.clock.val();
            self.eq_q[w].d.next = bits::<7>(0);
            if self.eq_q[w].q.val().all() {
                self.l_seen.next = true;
            }
        }
        // (Outside the loop: `bit_cast` of an indexed signal does not translate in one.)
        self.word[0].next = bit_cast::<56, 49>(self.ways[0].read_data.val());
        self.word[1].next = bit_cast::<56, 49>(self.ways[1].read_data.val());
        for g in 0..7 {
            self.eq_q[0].d.next = self.eq_q[0].d.val().replace_bit(
                g,
                self.word[0].val().get_bits::<8>(8 * g) == self.want.val().get_bits::<8>(8 * g),
            );
            self.eq_q[1].d.next = self.eq_q[1].d.val().replace_bit(
                g,
                self.word[1].val().get_bits::<8>(8 * g) == self.want.val().get_bits::<8>(8 * g),
            );
        }
        self.gate_q.d.next = self.ok_q.q.val() & (self.peek_q.q.val() == self.key.val());
        self.seen.next = self.l_seen.val() & self.gate_q.q.val();

        // Filing, first clock: the key registered. Second: read the set's pointer.
        self.i_valid.d.next = self.file.val();
        self.i_key.d.next = self.file_key.val();
        self.ptr.read_clock.next = self.clock.val();
        self.ptr.write_clock.next = self.clock.val();
        self.ptr.read_address.next = self.file_set.val();
        self.f_valid.d.next = self.i_valid.q.val() & self.swept.q.val();
        self.f_key.d.next = self.i_key.q.val();
        self.f_set.d.next = self.file_set.val();
        // Third clock: the way the set's pointer gives (the pointer a file one or two clocks
        // before left, if it went to the same set: neither is in the word read), registered,
        // and the pointer advanced.
        self.f_way.next = self.ptr.read_data.val();
        if self.l2_valid.q.val() & (self.l2_set.q.val() == self.f_set.q.val()) {
            self.f_way.next = self.l2_ptr.q.val();
        }
        if self.l_valid.q.val() & (self.l_set.q.val() == self.f_set.q.val()) {
            self.f_way.next = self.l_ptr.q.val();
        }
        self.l_valid.d.next = self.f_valid.q.val();
        self.l_set.d.next = self.f_set.q.val();
        self.l_ptr.d.next = !self.f_way.val();
        self.l2_valid.d.next = self.l_valid.q.val();
        self.l2_set.d.next = self.l_set.q.val();
        self.l2_ptr.d.next = self.l_ptr.q.val();
        // Fourth clock: the advanced pointer written, from flip-flops (written in the third
        // clock, the RAM's read data ran through the forwarding select into its own write
        // data: board64's worst path at 674f50f, seed 1).
        self.ptr.write_address.next = self.l_set.q.val();
        self.ptr.write_data.next = self.l_ptr.q.val();
        self.ptr.write_enable.next = self.l_valid.q.val();
        self.w_valid.d.next = self.f_valid.q.val();
        self.w_key.d.next = self.f_key.q.val();
        self.w_set.d.next = self.f_set.q.val();
        self.w_way.d.next = self.f_way.val();
        // Fourth clock: write the key into its way.
        for w in 0..2 {
            self.ways[w].write_address.next = self.w_set.q.val();
            self.ways[w].write_data.next =
                bit_cast::<49, 48>(self.w_key.q.val()) | bits::<49>(1 << 48);
            self.ways[w].write_enable.next =
                self.w_valid.q.val() & (self.w_way.q.val() == self.way_index[w].val());
        }

        // The sweep: one set a clock, every way and the pointer cleared.
        if !self.swept.q.val() {
            self.ptr.write_address.next = self.sweep_set.q.val();
            self.ptr.write_data.next = bits::<1>(0);
            self.ptr.write_enable.next = true;
            for w in 0..2 {
                self.ways[w].write_address.next = self.sweep_set.q.val();
                self.ways[w].write_data.next = bits::<49>(0);
                self.ways[w].write_enable.next = true;
            }
            self.sweep_set.d.next = self.sweep_set.q.val() + bits::<SET_BITS>(1);
            if self.sweep_set.q.val() == self.last_set.val() {
                self.swept.d.next = true;
            }
        }
        if self.reset.val() {
            self.swept.d.next = false;
            self.ok_q.d.next = false;
            self.gate_q.d.next = false;
            self.sweep_set.d.next = bits::<SET_BITS>(0);
            self.i_valid.d.next = false;
            self.f_valid.d.next = false;
            self.l_valid.d.next = false;
            self.l2_valid.d.next = false;
            self.w_valid.d.next = false;
        }
        self.sweeping.next = !self.swept.q.val();
        self.staged.next = self.i_valid.q.val();
        self.staged_key.next = self.i_key.q.val();
    }
}
