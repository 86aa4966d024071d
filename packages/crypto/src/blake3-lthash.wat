;; BLAKE3 extendable output of 2048 bytes (one LtHash16 element, lthash.ts) for inputs of at most
;; one chunk (1024 bytes), summed into or subtracted from a vector of 1024 u16 lanes, for a whole
;; batch of inputs per call. Source of blake3-lthash.wasm.ts (scripts/assemble-wat.ts; a test checks
;; that the committed bytes are this file assembled).
;;
;; The 2048 bytes are 32 output blocks of 64 bytes, compressions of the input's last block that
;; differ only in their counter: four are computed at once, block 4g + j in lane j of each i32x4.
;; The vector is kept in the same transposed layout (ACC below), so that a compression's output is
;; summed as it lies; lthash-kernel.ts transposes the vector in and out once per batch. Nothing
;; but the sum leaves the module unless an input asks for its element (tests, `out` below).
;;
;; Memory (byte offsets):
;;   0      SIGMA  the message word order of each of the 7 rounds (16 bytes each)
;;   128    BLOCK  the input's last block, zero-padded
;;   192    CV     the chaining value (8 u32)
;;   256    MSG    the block being compressed, its words in each round's order (7 x 16 u32)
;;   768    OUT    a compression's output, 16 x i32x4 (word k of four blocks in vector k)
;;   1024   ACC    the vector: group g (output blocks 4g..4g+3) at 1024 + 256 g, word k of block
;;                 4g + j at + 16 k + 4 j (two u16 lanes)
;;   4096   IO     the caller's: descriptors and inputs (the memory grows as it needs)
;;
;; A descriptor is 4 u32: input offset, input length (at most 1024), what to do with its element
;; (bit 0: add it to ACC, bit 1: subtract it), and where to write the element in the natural layout
;; (lane i at bytes 2i, 2i+1), 0 for nowhere.
(module
  (memory (export "memory") 1)
  (global (export "ACC") i32 (i32.const 1024))
  (global (export "IO") i32 (i32.const 4096))

  (data (i32.const 0)
    "\00\01\02\03\04\05\06\07\08\09\0a\0b\0c\0d\0e\0f"
    "\02\06\03\0a\07\00\04\0d\01\0b\0c\05\09\0e\0f\08"
    "\03\04\0a\0c\0d\02\07\0e\06\05\09\00\0b\0f\08\01"
    "\0a\07\0c\09\0e\03\0d\0f\04\00\0b\02\05\08\01\06"
    "\0c\0d\09\0b\0f\0a\0e\08\07\02\05\03\00\01\06\04"
    "\09\0e\0b\05\08\0c\0f\01\0d\03\00\0a\02\06\04\07"
    "\0b\0f\05\00\01\09\08\06\0e\0a\02\0c\03\04\07\0d")

  ;; MSG := the 16 words at $src, in each round's order.
  (func $schedule (param $src i32)
    (local $i i32)
    (loop $words
      (i32.store offset=256
        (i32.shl (local.get $i) (i32.const 2))
        (i32.load (i32.add (local.get $src) (i32.shl (i32.load8_u (local.get $i)) (i32.const 2)))))
      (br_if $words (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (i32.const 112)))))

  ;; OUT := four BLAKE3 compressions of CV and MSG, lane j with counter $counter[j] (all below
  ;; 2^32), the same block length and flags.
  (func $compress (param $counter v128) (param $blockLen i32) (param $flags i32)
    (local $s0 v128) (local $s1 v128) (local $s2 v128) (local $s3 v128)
    (local $s4 v128) (local $s5 v128) (local $s6 v128) (local $s7 v128)
    (local $s8 v128) (local $s9 v128) (local $s10 v128) (local $s11 v128)
    (local $s12 v128) (local $s13 v128) (local $s14 v128) (local $s15 v128)
    (local $m i32)
    (local.set $s0 (v128.load32_splat offset=192 (i32.const 0)))
    (local.set $s1 (v128.load32_splat offset=196 (i32.const 0)))
    (local.set $s2 (v128.load32_splat offset=200 (i32.const 0)))
    (local.set $s3 (v128.load32_splat offset=204 (i32.const 0)))
    (local.set $s4 (v128.load32_splat offset=208 (i32.const 0)))
    (local.set $s5 (v128.load32_splat offset=212 (i32.const 0)))
    (local.set $s6 (v128.load32_splat offset=216 (i32.const 0)))
    (local.set $s7 (v128.load32_splat offset=220 (i32.const 0)))
    (local.set $s8 (v128.const i32x4 0x6a09e667 0x6a09e667 0x6a09e667 0x6a09e667))
    (local.set $s9 (v128.const i32x4 0xbb67ae85 0xbb67ae85 0xbb67ae85 0xbb67ae85))
    (local.set $s10 (v128.const i32x4 0x3c6ef372 0x3c6ef372 0x3c6ef372 0x3c6ef372))
    (local.set $s11 (v128.const i32x4 0xa54ff53a 0xa54ff53a 0xa54ff53a 0xa54ff53a))
    (local.set $s12 (local.get $counter))
    ;; $s13, the counter's high words, stays 0.
    (local.set $s14 (i32x4.splat (local.get $blockLen)))
    (local.set $s15 (i32x4.splat (local.get $flags)))
    (local.set $m (i32.const 256))
    (loop $rounds
      ;; G(0, 4, 8, 12) with message words 0 and 1 of the round
      (local.set $s0 (i32x4.add (i32x4.add (local.get $s0) (local.get $s4)) (v128.load32_splat offset=0 (local.get $m))))
      (local.set $s12 (i8x16.shuffle 2 3 0 1 6 7 4 5 10 11 8 9 14 15 12 13 (local.tee $s12 (v128.xor (local.get $s12) (local.get $s0))) (local.get $s12)))
      (local.set $s8 (i32x4.add (local.get $s8) (local.get $s12)))
      (local.set $s4 (v128.or (i32x4.shr_u (local.tee $s4 (v128.xor (local.get $s4) (local.get $s8))) (i32.const 12)) (i32x4.shl (local.get $s4) (i32.const 20))))
      (local.set $s0 (i32x4.add (i32x4.add (local.get $s0) (local.get $s4)) (v128.load32_splat offset=4 (local.get $m))))
      (local.set $s12 (i8x16.shuffle 1 2 3 0 5 6 7 4 9 10 11 8 13 14 15 12 (local.tee $s12 (v128.xor (local.get $s12) (local.get $s0))) (local.get $s12)))
      (local.set $s8 (i32x4.add (local.get $s8) (local.get $s12)))
      (local.set $s4 (v128.or (i32x4.shr_u (local.tee $s4 (v128.xor (local.get $s4) (local.get $s8))) (i32.const 7)) (i32x4.shl (local.get $s4) (i32.const 25))))
      ;; G(1, 5, 9, 13) with message words 2 and 3 of the round
      (local.set $s1 (i32x4.add (i32x4.add (local.get $s1) (local.get $s5)) (v128.load32_splat offset=8 (local.get $m))))
      (local.set $s13 (i8x16.shuffle 2 3 0 1 6 7 4 5 10 11 8 9 14 15 12 13 (local.tee $s13 (v128.xor (local.get $s13) (local.get $s1))) (local.get $s13)))
      (local.set $s9 (i32x4.add (local.get $s9) (local.get $s13)))
      (local.set $s5 (v128.or (i32x4.shr_u (local.tee $s5 (v128.xor (local.get $s5) (local.get $s9))) (i32.const 12)) (i32x4.shl (local.get $s5) (i32.const 20))))
      (local.set $s1 (i32x4.add (i32x4.add (local.get $s1) (local.get $s5)) (v128.load32_splat offset=12 (local.get $m))))
      (local.set $s13 (i8x16.shuffle 1 2 3 0 5 6 7 4 9 10 11 8 13 14 15 12 (local.tee $s13 (v128.xor (local.get $s13) (local.get $s1))) (local.get $s13)))
      (local.set $s9 (i32x4.add (local.get $s9) (local.get $s13)))
      (local.set $s5 (v128.or (i32x4.shr_u (local.tee $s5 (v128.xor (local.get $s5) (local.get $s9))) (i32.const 7)) (i32x4.shl (local.get $s5) (i32.const 25))))
      ;; G(2, 6, 10, 14) with message words 4 and 5 of the round
      (local.set $s2 (i32x4.add (i32x4.add (local.get $s2) (local.get $s6)) (v128.load32_splat offset=16 (local.get $m))))
      (local.set $s14 (i8x16.shuffle 2 3 0 1 6 7 4 5 10 11 8 9 14 15 12 13 (local.tee $s14 (v128.xor (local.get $s14) (local.get $s2))) (local.get $s14)))
      (local.set $s10 (i32x4.add (local.get $s10) (local.get $s14)))
      (local.set $s6 (v128.or (i32x4.shr_u (local.tee $s6 (v128.xor (local.get $s6) (local.get $s10))) (i32.const 12)) (i32x4.shl (local.get $s6) (i32.const 20))))
      (local.set $s2 (i32x4.add (i32x4.add (local.get $s2) (local.get $s6)) (v128.load32_splat offset=20 (local.get $m))))
      (local.set $s14 (i8x16.shuffle 1 2 3 0 5 6 7 4 9 10 11 8 13 14 15 12 (local.tee $s14 (v128.xor (local.get $s14) (local.get $s2))) (local.get $s14)))
      (local.set $s10 (i32x4.add (local.get $s10) (local.get $s14)))
      (local.set $s6 (v128.or (i32x4.shr_u (local.tee $s6 (v128.xor (local.get $s6) (local.get $s10))) (i32.const 7)) (i32x4.shl (local.get $s6) (i32.const 25))))
      ;; G(3, 7, 11, 15) with message words 6 and 7 of the round
      (local.set $s3 (i32x4.add (i32x4.add (local.get $s3) (local.get $s7)) (v128.load32_splat offset=24 (local.get $m))))
      (local.set $s15 (i8x16.shuffle 2 3 0 1 6 7 4 5 10 11 8 9 14 15 12 13 (local.tee $s15 (v128.xor (local.get $s15) (local.get $s3))) (local.get $s15)))
      (local.set $s11 (i32x4.add (local.get $s11) (local.get $s15)))
      (local.set $s7 (v128.or (i32x4.shr_u (local.tee $s7 (v128.xor (local.get $s7) (local.get $s11))) (i32.const 12)) (i32x4.shl (local.get $s7) (i32.const 20))))
      (local.set $s3 (i32x4.add (i32x4.add (local.get $s3) (local.get $s7)) (v128.load32_splat offset=28 (local.get $m))))
      (local.set $s15 (i8x16.shuffle 1 2 3 0 5 6 7 4 9 10 11 8 13 14 15 12 (local.tee $s15 (v128.xor (local.get $s15) (local.get $s3))) (local.get $s15)))
      (local.set $s11 (i32x4.add (local.get $s11) (local.get $s15)))
      (local.set $s7 (v128.or (i32x4.shr_u (local.tee $s7 (v128.xor (local.get $s7) (local.get $s11))) (i32.const 7)) (i32x4.shl (local.get $s7) (i32.const 25))))
      ;; G(0, 5, 10, 15) with message words 8 and 9 of the round
      (local.set $s0 (i32x4.add (i32x4.add (local.get $s0) (local.get $s5)) (v128.load32_splat offset=32 (local.get $m))))
      (local.set $s15 (i8x16.shuffle 2 3 0 1 6 7 4 5 10 11 8 9 14 15 12 13 (local.tee $s15 (v128.xor (local.get $s15) (local.get $s0))) (local.get $s15)))
      (local.set $s10 (i32x4.add (local.get $s10) (local.get $s15)))
      (local.set $s5 (v128.or (i32x4.shr_u (local.tee $s5 (v128.xor (local.get $s5) (local.get $s10))) (i32.const 12)) (i32x4.shl (local.get $s5) (i32.const 20))))
      (local.set $s0 (i32x4.add (i32x4.add (local.get $s0) (local.get $s5)) (v128.load32_splat offset=36 (local.get $m))))
      (local.set $s15 (i8x16.shuffle 1 2 3 0 5 6 7 4 9 10 11 8 13 14 15 12 (local.tee $s15 (v128.xor (local.get $s15) (local.get $s0))) (local.get $s15)))
      (local.set $s10 (i32x4.add (local.get $s10) (local.get $s15)))
      (local.set $s5 (v128.or (i32x4.shr_u (local.tee $s5 (v128.xor (local.get $s5) (local.get $s10))) (i32.const 7)) (i32x4.shl (local.get $s5) (i32.const 25))))
      ;; G(1, 6, 11, 12) with message words 10 and 11 of the round
      (local.set $s1 (i32x4.add (i32x4.add (local.get $s1) (local.get $s6)) (v128.load32_splat offset=40 (local.get $m))))
      (local.set $s12 (i8x16.shuffle 2 3 0 1 6 7 4 5 10 11 8 9 14 15 12 13 (local.tee $s12 (v128.xor (local.get $s12) (local.get $s1))) (local.get $s12)))
      (local.set $s11 (i32x4.add (local.get $s11) (local.get $s12)))
      (local.set $s6 (v128.or (i32x4.shr_u (local.tee $s6 (v128.xor (local.get $s6) (local.get $s11))) (i32.const 12)) (i32x4.shl (local.get $s6) (i32.const 20))))
      (local.set $s1 (i32x4.add (i32x4.add (local.get $s1) (local.get $s6)) (v128.load32_splat offset=44 (local.get $m))))
      (local.set $s12 (i8x16.shuffle 1 2 3 0 5 6 7 4 9 10 11 8 13 14 15 12 (local.tee $s12 (v128.xor (local.get $s12) (local.get $s1))) (local.get $s12)))
      (local.set $s11 (i32x4.add (local.get $s11) (local.get $s12)))
      (local.set $s6 (v128.or (i32x4.shr_u (local.tee $s6 (v128.xor (local.get $s6) (local.get $s11))) (i32.const 7)) (i32x4.shl (local.get $s6) (i32.const 25))))
      ;; G(2, 7, 8, 13) with message words 12 and 13 of the round
      (local.set $s2 (i32x4.add (i32x4.add (local.get $s2) (local.get $s7)) (v128.load32_splat offset=48 (local.get $m))))
      (local.set $s13 (i8x16.shuffle 2 3 0 1 6 7 4 5 10 11 8 9 14 15 12 13 (local.tee $s13 (v128.xor (local.get $s13) (local.get $s2))) (local.get $s13)))
      (local.set $s8 (i32x4.add (local.get $s8) (local.get $s13)))
      (local.set $s7 (v128.or (i32x4.shr_u (local.tee $s7 (v128.xor (local.get $s7) (local.get $s8))) (i32.const 12)) (i32x4.shl (local.get $s7) (i32.const 20))))
      (local.set $s2 (i32x4.add (i32x4.add (local.get $s2) (local.get $s7)) (v128.load32_splat offset=52 (local.get $m))))
      (local.set $s13 (i8x16.shuffle 1 2 3 0 5 6 7 4 9 10 11 8 13 14 15 12 (local.tee $s13 (v128.xor (local.get $s13) (local.get $s2))) (local.get $s13)))
      (local.set $s8 (i32x4.add (local.get $s8) (local.get $s13)))
      (local.set $s7 (v128.or (i32x4.shr_u (local.tee $s7 (v128.xor (local.get $s7) (local.get $s8))) (i32.const 7)) (i32x4.shl (local.get $s7) (i32.const 25))))
      ;; G(3, 4, 9, 14) with message words 14 and 15 of the round
      (local.set $s3 (i32x4.add (i32x4.add (local.get $s3) (local.get $s4)) (v128.load32_splat offset=56 (local.get $m))))
      (local.set $s14 (i8x16.shuffle 2 3 0 1 6 7 4 5 10 11 8 9 14 15 12 13 (local.tee $s14 (v128.xor (local.get $s14) (local.get $s3))) (local.get $s14)))
      (local.set $s9 (i32x4.add (local.get $s9) (local.get $s14)))
      (local.set $s4 (v128.or (i32x4.shr_u (local.tee $s4 (v128.xor (local.get $s4) (local.get $s9))) (i32.const 12)) (i32x4.shl (local.get $s4) (i32.const 20))))
      (local.set $s3 (i32x4.add (i32x4.add (local.get $s3) (local.get $s4)) (v128.load32_splat offset=60 (local.get $m))))
      (local.set $s14 (i8x16.shuffle 1 2 3 0 5 6 7 4 9 10 11 8 13 14 15 12 (local.tee $s14 (v128.xor (local.get $s14) (local.get $s3))) (local.get $s14)))
      (local.set $s9 (i32x4.add (local.get $s9) (local.get $s14)))
      (local.set $s4 (v128.or (i32x4.shr_u (local.tee $s4 (v128.xor (local.get $s4) (local.get $s9))) (i32.const 7)) (i32x4.shl (local.get $s4) (i32.const 25))))
      (br_if $rounds (i32.lt_u (local.tee $m (i32.add (local.get $m) (i32.const 64))) (i32.const 704))))
    (v128.store offset=768 (i32.const 0) (v128.xor (local.get $s0) (local.get $s8)))
    (v128.store offset=784 (i32.const 0) (v128.xor (local.get $s1) (local.get $s9)))
    (v128.store offset=800 (i32.const 0) (v128.xor (local.get $s2) (local.get $s10)))
    (v128.store offset=816 (i32.const 0) (v128.xor (local.get $s3) (local.get $s11)))
    (v128.store offset=832 (i32.const 0) (v128.xor (local.get $s4) (local.get $s12)))
    (v128.store offset=848 (i32.const 0) (v128.xor (local.get $s5) (local.get $s13)))
    (v128.store offset=864 (i32.const 0) (v128.xor (local.get $s6) (local.get $s14)))
    (v128.store offset=880 (i32.const 0) (v128.xor (local.get $s7) (local.get $s15)))
    (v128.store offset=896 (i32.const 0) (v128.xor (local.get $s8) (v128.load32_splat offset=192 (i32.const 0))))
    (v128.store offset=912 (i32.const 0) (v128.xor (local.get $s9) (v128.load32_splat offset=196 (i32.const 0))))
    (v128.store offset=928 (i32.const 0) (v128.xor (local.get $s10) (v128.load32_splat offset=200 (i32.const 0))))
    (v128.store offset=944 (i32.const 0) (v128.xor (local.get $s11) (v128.load32_splat offset=204 (i32.const 0))))
    (v128.store offset=960 (i32.const 0) (v128.xor (local.get $s12) (v128.load32_splat offset=208 (i32.const 0))))
    (v128.store offset=976 (i32.const 0) (v128.xor (local.get $s13) (v128.load32_splat offset=212 (i32.const 0))))
    (v128.store offset=992 (i32.const 0) (v128.xor (local.get $s14) (v128.load32_splat offset=216 (i32.const 0))))
    (v128.store offset=1008 (i32.const 0) (v128.xor (local.get $s15) (v128.load32_splat offset=220 (i32.const 0)))))

  ;; One input's element: the chunk's blocks but the last chain CV (their outputs' first 8 words,
  ;; equal in all lanes), then the last block's 32 outputs are used by groups of four.
  (func $element (param $src i32) (param $len i32) (param $op i32) (param $out i32)
    (local $flags i32) (local $counter v128) (local $g i32) (local $k i32)
    ;; A longer input is more than one chunk, which this module does not hash: the caller's bug.
    (if (i32.gt_u (local.get $len) (i32.const 1024)) (then unreachable))
    (i32.store offset=192 (i32.const 0) (i32.const 0x6a09e667))
    (i32.store offset=196 (i32.const 0) (i32.const 0xbb67ae85))
    (i32.store offset=200 (i32.const 0) (i32.const 0x3c6ef372))
    (i32.store offset=204 (i32.const 0) (i32.const 0xa54ff53a))
    (i32.store offset=208 (i32.const 0) (i32.const 0x510e527f))
    (i32.store offset=212 (i32.const 0) (i32.const 0x9b05688c))
    (i32.store offset=216 (i32.const 0) (i32.const 0x1f83d9ab))
    (i32.store offset=220 (i32.const 0) (i32.const 0x5be0cd19))
    ;; CHUNK_START
    (local.set $flags (i32.const 1))
    (block $last
      (loop $blocks
        (br_if $last (i32.le_u (local.get $len) (i32.const 64)))
        (call $schedule (local.get $src))
        (call $compress (v128.const i32x4 0 0 0 0) (i32.const 64) (local.get $flags))
        (i32.store offset=192 (i32.const 0) (i32.load offset=768 (i32.const 0)))
        (i32.store offset=196 (i32.const 0) (i32.load offset=784 (i32.const 0)))
        (i32.store offset=200 (i32.const 0) (i32.load offset=800 (i32.const 0)))
        (i32.store offset=204 (i32.const 0) (i32.load offset=816 (i32.const 0)))
        (i32.store offset=208 (i32.const 0) (i32.load offset=832 (i32.const 0)))
        (i32.store offset=212 (i32.const 0) (i32.load offset=848 (i32.const 0)))
        (i32.store offset=216 (i32.const 0) (i32.load offset=864 (i32.const 0)))
        (i32.store offset=220 (i32.const 0) (i32.load offset=880 (i32.const 0)))
        (local.set $flags (i32.const 0))
        (local.set $src (i32.add (local.get $src) (i32.const 64)))
        (local.set $len (i32.sub (local.get $len) (i32.const 64)))
        (br $blocks)))
    (memory.fill (i32.const 128) (i32.const 0) (i32.const 64))
    (memory.copy (i32.const 128) (local.get $src) (local.get $len))
    (call $schedule (i32.const 128))
    ;; | CHUNK_END | ROOT
    (local.set $flags (i32.or (local.get $flags) (i32.const 10)))
    (local.set $counter (v128.const i32x4 0 1 2 3))
    (loop $groups
      (call $compress (local.get $counter) (local.get $len) (local.get $flags))
      ;; $g is the group's byte offset in ACC (256 per group), $k a vector's in it.
      (if (i32.and (local.get $op) (i32.const 1))
        (then
          (local.set $k (i32.const 0))
          (loop $add
            (v128.store offset=1024 (i32.add (local.get $g) (local.get $k))
              (i16x8.add
                (v128.load offset=1024 (i32.add (local.get $g) (local.get $k)))
                (v128.load offset=768 (local.get $k))))
            (br_if $add (i32.lt_u (local.tee $k (i32.add (local.get $k) (i32.const 16))) (i32.const 256))))))
      (if (i32.and (local.get $op) (i32.const 2))
        (then
          (local.set $k (i32.const 0))
          (loop $sub
            (v128.store offset=1024 (i32.add (local.get $g) (local.get $k))
              (i16x8.sub
                (v128.load offset=1024 (i32.add (local.get $g) (local.get $k)))
                (v128.load offset=768 (local.get $k))))
            (br_if $sub (i32.lt_u (local.tee $k (i32.add (local.get $k) (i32.const 16))) (i32.const 256))))))
      (if (local.get $out)
        (then
          ;; Word k of block 4g + j goes to byte 64 (4g + j) + 4k of the element.
          (local.set $k (i32.const 0))
          (loop $write
            (i32.store offset=0
              (i32.add (i32.add (local.get $out) (local.get $g)) (i32.shr_u (local.get $k) (i32.const 2)))
              (i32x4.extract_lane 0 (v128.load offset=768 (local.get $k))))
            (i32.store offset=64
              (i32.add (i32.add (local.get $out) (local.get $g)) (i32.shr_u (local.get $k) (i32.const 2)))
              (i32x4.extract_lane 1 (v128.load offset=768 (local.get $k))))
            (i32.store offset=128
              (i32.add (i32.add (local.get $out) (local.get $g)) (i32.shr_u (local.get $k) (i32.const 2)))
              (i32x4.extract_lane 2 (v128.load offset=768 (local.get $k))))
            (i32.store offset=192
              (i32.add (i32.add (local.get $out) (local.get $g)) (i32.shr_u (local.get $k) (i32.const 2)))
              (i32x4.extract_lane 3 (v128.load offset=768 (local.get $k))))
            (br_if $write (i32.lt_u (local.tee $k (i32.add (local.get $k) (i32.const 16))) (i32.const 256))))))
      (local.set $counter (i32x4.add (local.get $counter) (v128.const i32x4 4 4 4 4)))
      (br_if $groups (i32.lt_u (local.tee $g (i32.add (local.get $g) (i32.const 256))) (i32.const 2048)))))

  ;; The elements of $count inputs, described at $descriptors (16 bytes each, see above).
  (func (export "elements") (param $descriptors i32) (param $count i32)
    (block $done
      (loop $inputs
        (br_if $done (i32.eqz (local.get $count)))
        (call $element
          (i32.load (local.get $descriptors))
          (i32.load offset=4 (local.get $descriptors))
          (i32.load offset=8 (local.get $descriptors))
          (i32.load offset=12 (local.get $descriptors)))
        (local.set $descriptors (i32.add (local.get $descriptors) (i32.const 16)))
        (local.set $count (i32.sub (local.get $count) (i32.const 1)))
        (br $inputs)))))
