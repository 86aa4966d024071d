;; BLAKE3 extendable output of 2048 bytes (one LtHash16 element, lthash.ts) for inputs of at most
;; one chunk (1024 bytes), summed into or subtracted from a vector of 1024 u16 lanes, for a whole
;; batch of inputs per call. Source of blake3-lthash.wasm.ts (scripts/assemble-wat.ts; a test checks
;; that the committed bytes are this file assembled).
;;
;; Four compressions run at once, one in each i32x4 lane. The 2048 bytes are 32 output blocks of
;; 64 bytes, compressions of the input's last block that differ only in their counter: block
;; 4g + j is lane j of group g. The blocks before an input's last chain one after another, so
;; there the lanes are four inputs. The vector is kept in the output's transposed layout (ACC
;; below), so that an output is summed as it lies; lthash-kernel.ts transposes the vector in and
;; out once per batch. Nothing but the sum leaves the module unless an input asks for its element.
;;
;; Memory (byte offsets; vectors are i32x4, lane j of "per lane" ones for input or block j):
;;   0      SIGMA  the message word order of each of the 7 rounds (16 bytes each)
;;   128    BLOCK  an input's last block, zero-padded
;;   192    NB     per input of a group of four: its blocks before the last (4 x u32)
;;   256    CV     the chaining value of a compression (8 vectors)
;;   384    W      the block compressed (16 vectors, word k in vector k)
;;   640    OUT    a compression's output (16 vectors)
;;   896    CV4    per lane, the chaining value of four inputs after the blocks before their last
;;   1024   ACC    the vector: output block 4g + j's word k at 1024 + 256 g + 16 k + 4 j
;;   3072   MSG    W's vectors in each round's order (7 x 16 vectors)
;;   8192   IO     the caller's: descriptors and inputs (the caller grows the memory as it needs)
;;
;; A descriptor is 4 u32: input offset, input length (at most 1024), what to do with its element
;; (bit 0: add it to ACC, bit 1: subtract it), and where to write the element in the natural layout
;; (lane i at bytes 2i, 2i+1), 0 for nowhere.
(module
  (memory (export "memory") 1)
  (global (export "ACC") i32 (i32.const 1024))
  (global (export "IO") i32 (i32.const 8192))

  (data (i32.const 0)
    "\00\01\02\03\04\05\06\07\08\09\0a\0b\0c\0d\0e\0f"
    "\02\06\03\0a\07\00\04\0d\01\0b\0c\05\09\0e\0f\08"
    "\03\04\0a\0c\0d\02\07\0e\06\05\09\00\0b\0f\08\01"
    "\0a\07\0c\09\0e\03\0d\0f\04\00\0b\02\05\08\01\06"
    "\0c\0d\09\0b\0f\0a\0e\08\07\02\05\03\00\01\06\04"
    "\09\0e\0b\05\08\0c\0f\01\0d\03\00\0a\02\06\04\07"
    "\0b\0f\05\00\01\09\08\06\0e\0a\02\0c\03\04\07\0d")

  ;; MSG := W's vectors in each round's order.
  (func $schedule
    (local $t i32)
    (loop $words
      (v128.store offset=3072
        (i32.shl (local.get $t) (i32.const 4))
        (v128.load offset=384 (i32.shl (i32.load8_u (local.get $t)) (i32.const 4))))
      (br_if $words (i32.lt_u (local.tee $t (i32.add (local.get $t) (i32.const 1))) (i32.const 112)))))

  ;; OUT := four BLAKE3 compressions of the chaining value at $cv (8 vectors) and MSG, lane j
  ;; with counter $counter[j] (all below 2^32), the same block length and flags.
  (func $compress (param $cv i32) (param $counter v128) (param $blockLen i32) (param $flags i32)
    (local $s0 v128) (local $s1 v128) (local $s2 v128) (local $s3 v128)
    (local $s4 v128) (local $s5 v128) (local $s6 v128) (local $s7 v128)
    (local $s8 v128) (local $s9 v128) (local $s10 v128) (local $s11 v128)
    (local $s12 v128) (local $s13 v128) (local $s14 v128) (local $s15 v128)
    (local $m i32)
    (local.set $s0 (v128.load offset=0 (local.get $cv)))
    (local.set $s1 (v128.load offset=16 (local.get $cv)))
    (local.set $s2 (v128.load offset=32 (local.get $cv)))
    (local.set $s3 (v128.load offset=48 (local.get $cv)))
    (local.set $s4 (v128.load offset=64 (local.get $cv)))
    (local.set $s5 (v128.load offset=80 (local.get $cv)))
    (local.set $s6 (v128.load offset=96 (local.get $cv)))
    (local.set $s7 (v128.load offset=112 (local.get $cv)))
    (local.set $s8 (v128.const i32x4 0x6a09e667 0x6a09e667 0x6a09e667 0x6a09e667))
    (local.set $s9 (v128.const i32x4 0xbb67ae85 0xbb67ae85 0xbb67ae85 0xbb67ae85))
    (local.set $s10 (v128.const i32x4 0x3c6ef372 0x3c6ef372 0x3c6ef372 0x3c6ef372))
    (local.set $s11 (v128.const i32x4 0xa54ff53a 0xa54ff53a 0xa54ff53a 0xa54ff53a))
    (local.set $s12 (local.get $counter))
    ;; $s13, the counter's high words, stays 0.
    (local.set $s14 (i32x4.splat (local.get $blockLen)))
    (local.set $s15 (i32x4.splat (local.get $flags)))
    (local.set $m (i32.const 3072))
    (loop $rounds
      ;; G(0, 4, 8, 12) with the round's message words 0 and 1
      (local.set $s0 (i32x4.add (i32x4.add (local.get $s0) (local.get $s4)) (v128.load offset=0 (local.get $m))))
      (local.set $s12 (i8x16.shuffle 2 3 0 1 6 7 4 5 10 11 8 9 14 15 12 13 (local.tee $s12 (v128.xor (local.get $s12) (local.get $s0))) (local.get $s12)))
      (local.set $s8 (i32x4.add (local.get $s8) (local.get $s12)))
      (local.set $s4 (v128.or (i32x4.shr_u (local.tee $s4 (v128.xor (local.get $s4) (local.get $s8))) (i32.const 12)) (i32x4.shl (local.get $s4) (i32.const 20))))
      (local.set $s0 (i32x4.add (i32x4.add (local.get $s0) (local.get $s4)) (v128.load offset=16 (local.get $m))))
      (local.set $s12 (i8x16.shuffle 1 2 3 0 5 6 7 4 9 10 11 8 13 14 15 12 (local.tee $s12 (v128.xor (local.get $s12) (local.get $s0))) (local.get $s12)))
      (local.set $s8 (i32x4.add (local.get $s8) (local.get $s12)))
      (local.set $s4 (v128.or (i32x4.shr_u (local.tee $s4 (v128.xor (local.get $s4) (local.get $s8))) (i32.const 7)) (i32x4.shl (local.get $s4) (i32.const 25))))
      ;; G(1, 5, 9, 13) with the round's message words 2 and 3
      (local.set $s1 (i32x4.add (i32x4.add (local.get $s1) (local.get $s5)) (v128.load offset=32 (local.get $m))))
      (local.set $s13 (i8x16.shuffle 2 3 0 1 6 7 4 5 10 11 8 9 14 15 12 13 (local.tee $s13 (v128.xor (local.get $s13) (local.get $s1))) (local.get $s13)))
      (local.set $s9 (i32x4.add (local.get $s9) (local.get $s13)))
      (local.set $s5 (v128.or (i32x4.shr_u (local.tee $s5 (v128.xor (local.get $s5) (local.get $s9))) (i32.const 12)) (i32x4.shl (local.get $s5) (i32.const 20))))
      (local.set $s1 (i32x4.add (i32x4.add (local.get $s1) (local.get $s5)) (v128.load offset=48 (local.get $m))))
      (local.set $s13 (i8x16.shuffle 1 2 3 0 5 6 7 4 9 10 11 8 13 14 15 12 (local.tee $s13 (v128.xor (local.get $s13) (local.get $s1))) (local.get $s13)))
      (local.set $s9 (i32x4.add (local.get $s9) (local.get $s13)))
      (local.set $s5 (v128.or (i32x4.shr_u (local.tee $s5 (v128.xor (local.get $s5) (local.get $s9))) (i32.const 7)) (i32x4.shl (local.get $s5) (i32.const 25))))
      ;; G(2, 6, 10, 14) with the round's message words 4 and 5
      (local.set $s2 (i32x4.add (i32x4.add (local.get $s2) (local.get $s6)) (v128.load offset=64 (local.get $m))))
      (local.set $s14 (i8x16.shuffle 2 3 0 1 6 7 4 5 10 11 8 9 14 15 12 13 (local.tee $s14 (v128.xor (local.get $s14) (local.get $s2))) (local.get $s14)))
      (local.set $s10 (i32x4.add (local.get $s10) (local.get $s14)))
      (local.set $s6 (v128.or (i32x4.shr_u (local.tee $s6 (v128.xor (local.get $s6) (local.get $s10))) (i32.const 12)) (i32x4.shl (local.get $s6) (i32.const 20))))
      (local.set $s2 (i32x4.add (i32x4.add (local.get $s2) (local.get $s6)) (v128.load offset=80 (local.get $m))))
      (local.set $s14 (i8x16.shuffle 1 2 3 0 5 6 7 4 9 10 11 8 13 14 15 12 (local.tee $s14 (v128.xor (local.get $s14) (local.get $s2))) (local.get $s14)))
      (local.set $s10 (i32x4.add (local.get $s10) (local.get $s14)))
      (local.set $s6 (v128.or (i32x4.shr_u (local.tee $s6 (v128.xor (local.get $s6) (local.get $s10))) (i32.const 7)) (i32x4.shl (local.get $s6) (i32.const 25))))
      ;; G(3, 7, 11, 15) with the round's message words 6 and 7
      (local.set $s3 (i32x4.add (i32x4.add (local.get $s3) (local.get $s7)) (v128.load offset=96 (local.get $m))))
      (local.set $s15 (i8x16.shuffle 2 3 0 1 6 7 4 5 10 11 8 9 14 15 12 13 (local.tee $s15 (v128.xor (local.get $s15) (local.get $s3))) (local.get $s15)))
      (local.set $s11 (i32x4.add (local.get $s11) (local.get $s15)))
      (local.set $s7 (v128.or (i32x4.shr_u (local.tee $s7 (v128.xor (local.get $s7) (local.get $s11))) (i32.const 12)) (i32x4.shl (local.get $s7) (i32.const 20))))
      (local.set $s3 (i32x4.add (i32x4.add (local.get $s3) (local.get $s7)) (v128.load offset=112 (local.get $m))))
      (local.set $s15 (i8x16.shuffle 1 2 3 0 5 6 7 4 9 10 11 8 13 14 15 12 (local.tee $s15 (v128.xor (local.get $s15) (local.get $s3))) (local.get $s15)))
      (local.set $s11 (i32x4.add (local.get $s11) (local.get $s15)))
      (local.set $s7 (v128.or (i32x4.shr_u (local.tee $s7 (v128.xor (local.get $s7) (local.get $s11))) (i32.const 7)) (i32x4.shl (local.get $s7) (i32.const 25))))
      ;; G(0, 5, 10, 15) with the round's message words 8 and 9
      (local.set $s0 (i32x4.add (i32x4.add (local.get $s0) (local.get $s5)) (v128.load offset=128 (local.get $m))))
      (local.set $s15 (i8x16.shuffle 2 3 0 1 6 7 4 5 10 11 8 9 14 15 12 13 (local.tee $s15 (v128.xor (local.get $s15) (local.get $s0))) (local.get $s15)))
      (local.set $s10 (i32x4.add (local.get $s10) (local.get $s15)))
      (local.set $s5 (v128.or (i32x4.shr_u (local.tee $s5 (v128.xor (local.get $s5) (local.get $s10))) (i32.const 12)) (i32x4.shl (local.get $s5) (i32.const 20))))
      (local.set $s0 (i32x4.add (i32x4.add (local.get $s0) (local.get $s5)) (v128.load offset=144 (local.get $m))))
      (local.set $s15 (i8x16.shuffle 1 2 3 0 5 6 7 4 9 10 11 8 13 14 15 12 (local.tee $s15 (v128.xor (local.get $s15) (local.get $s0))) (local.get $s15)))
      (local.set $s10 (i32x4.add (local.get $s10) (local.get $s15)))
      (local.set $s5 (v128.or (i32x4.shr_u (local.tee $s5 (v128.xor (local.get $s5) (local.get $s10))) (i32.const 7)) (i32x4.shl (local.get $s5) (i32.const 25))))
      ;; G(1, 6, 11, 12) with the round's message words 10 and 11
      (local.set $s1 (i32x4.add (i32x4.add (local.get $s1) (local.get $s6)) (v128.load offset=160 (local.get $m))))
      (local.set $s12 (i8x16.shuffle 2 3 0 1 6 7 4 5 10 11 8 9 14 15 12 13 (local.tee $s12 (v128.xor (local.get $s12) (local.get $s1))) (local.get $s12)))
      (local.set $s11 (i32x4.add (local.get $s11) (local.get $s12)))
      (local.set $s6 (v128.or (i32x4.shr_u (local.tee $s6 (v128.xor (local.get $s6) (local.get $s11))) (i32.const 12)) (i32x4.shl (local.get $s6) (i32.const 20))))
      (local.set $s1 (i32x4.add (i32x4.add (local.get $s1) (local.get $s6)) (v128.load offset=176 (local.get $m))))
      (local.set $s12 (i8x16.shuffle 1 2 3 0 5 6 7 4 9 10 11 8 13 14 15 12 (local.tee $s12 (v128.xor (local.get $s12) (local.get $s1))) (local.get $s12)))
      (local.set $s11 (i32x4.add (local.get $s11) (local.get $s12)))
      (local.set $s6 (v128.or (i32x4.shr_u (local.tee $s6 (v128.xor (local.get $s6) (local.get $s11))) (i32.const 7)) (i32x4.shl (local.get $s6) (i32.const 25))))
      ;; G(2, 7, 8, 13) with the round's message words 12 and 13
      (local.set $s2 (i32x4.add (i32x4.add (local.get $s2) (local.get $s7)) (v128.load offset=192 (local.get $m))))
      (local.set $s13 (i8x16.shuffle 2 3 0 1 6 7 4 5 10 11 8 9 14 15 12 13 (local.tee $s13 (v128.xor (local.get $s13) (local.get $s2))) (local.get $s13)))
      (local.set $s8 (i32x4.add (local.get $s8) (local.get $s13)))
      (local.set $s7 (v128.or (i32x4.shr_u (local.tee $s7 (v128.xor (local.get $s7) (local.get $s8))) (i32.const 12)) (i32x4.shl (local.get $s7) (i32.const 20))))
      (local.set $s2 (i32x4.add (i32x4.add (local.get $s2) (local.get $s7)) (v128.load offset=208 (local.get $m))))
      (local.set $s13 (i8x16.shuffle 1 2 3 0 5 6 7 4 9 10 11 8 13 14 15 12 (local.tee $s13 (v128.xor (local.get $s13) (local.get $s2))) (local.get $s13)))
      (local.set $s8 (i32x4.add (local.get $s8) (local.get $s13)))
      (local.set $s7 (v128.or (i32x4.shr_u (local.tee $s7 (v128.xor (local.get $s7) (local.get $s8))) (i32.const 7)) (i32x4.shl (local.get $s7) (i32.const 25))))
      ;; G(3, 4, 9, 14) with the round's message words 14 and 15
      (local.set $s3 (i32x4.add (i32x4.add (local.get $s3) (local.get $s4)) (v128.load offset=224 (local.get $m))))
      (local.set $s14 (i8x16.shuffle 2 3 0 1 6 7 4 5 10 11 8 9 14 15 12 13 (local.tee $s14 (v128.xor (local.get $s14) (local.get $s3))) (local.get $s14)))
      (local.set $s9 (i32x4.add (local.get $s9) (local.get $s14)))
      (local.set $s4 (v128.or (i32x4.shr_u (local.tee $s4 (v128.xor (local.get $s4) (local.get $s9))) (i32.const 12)) (i32x4.shl (local.get $s4) (i32.const 20))))
      (local.set $s3 (i32x4.add (i32x4.add (local.get $s3) (local.get $s4)) (v128.load offset=240 (local.get $m))))
      (local.set $s14 (i8x16.shuffle 1 2 3 0 5 6 7 4 9 10 11 8 13 14 15 12 (local.tee $s14 (v128.xor (local.get $s14) (local.get $s3))) (local.get $s14)))
      (local.set $s9 (i32x4.add (local.get $s9) (local.get $s14)))
      (local.set $s4 (v128.or (i32x4.shr_u (local.tee $s4 (v128.xor (local.get $s4) (local.get $s9))) (i32.const 7)) (i32x4.shl (local.get $s4) (i32.const 25))))
      (br_if $rounds (i32.lt_u (local.tee $m (i32.add (local.get $m) (i32.const 256))) (i32.const 4864))))
    (v128.store offset=640 (i32.const 0) (v128.xor (local.get $s0) (local.get $s8)))
    (v128.store offset=656 (i32.const 0) (v128.xor (local.get $s1) (local.get $s9)))
    (v128.store offset=672 (i32.const 0) (v128.xor (local.get $s2) (local.get $s10)))
    (v128.store offset=688 (i32.const 0) (v128.xor (local.get $s3) (local.get $s11)))
    (v128.store offset=704 (i32.const 0) (v128.xor (local.get $s4) (local.get $s12)))
    (v128.store offset=720 (i32.const 0) (v128.xor (local.get $s5) (local.get $s13)))
    (v128.store offset=736 (i32.const 0) (v128.xor (local.get $s6) (local.get $s14)))
    (v128.store offset=752 (i32.const 0) (v128.xor (local.get $s7) (local.get $s15)))
    (v128.store offset=768 (i32.const 0) (v128.xor (local.get $s8) (v128.load offset=0 (local.get $cv))))
    (v128.store offset=784 (i32.const 0) (v128.xor (local.get $s9) (v128.load offset=16 (local.get $cv))))
    (v128.store offset=800 (i32.const 0) (v128.xor (local.get $s10) (v128.load offset=32 (local.get $cv))))
    (v128.store offset=816 (i32.const 0) (v128.xor (local.get $s11) (v128.load offset=48 (local.get $cv))))
    (v128.store offset=832 (i32.const 0) (v128.xor (local.get $s12) (v128.load offset=64 (local.get $cv))))
    (v128.store offset=848 (i32.const 0) (v128.xor (local.get $s13) (v128.load offset=80 (local.get $cv))))
    (v128.store offset=864 (i32.const 0) (v128.xor (local.get $s14) (v128.load offset=96 (local.get $cv))))
    (v128.store offset=880 (i32.const 0) (v128.xor (local.get $s15) (v128.load offset=112 (local.get $cv))))
)

  ;; CV4 := the chaining values of the $n (1 to 4) inputs described from $d after the blocks
  ;; before their last, one input per lane; NB := how many blocks that was for each.
  (func $chunks (param $d i32) (param $n i32)
    (local $j i32) (local $k i32) (local $b i32) (local $most i32) (local $len i32)
    (local $blocks i32) (local $src i32) (local $mask v128)
    (v128.store offset=896 (i32.const 0) (v128.const i32x4 0x6a09e667 0x6a09e667 0x6a09e667 0x6a09e667))
    (v128.store offset=912 (i32.const 0) (v128.const i32x4 0xbb67ae85 0xbb67ae85 0xbb67ae85 0xbb67ae85))
    (v128.store offset=928 (i32.const 0) (v128.const i32x4 0x3c6ef372 0x3c6ef372 0x3c6ef372 0x3c6ef372))
    (v128.store offset=944 (i32.const 0) (v128.const i32x4 0xa54ff53a 0xa54ff53a 0xa54ff53a 0xa54ff53a))
    (v128.store offset=960 (i32.const 0) (v128.const i32x4 0x510e527f 0x510e527f 0x510e527f 0x510e527f))
    (v128.store offset=976 (i32.const 0) (v128.const i32x4 0x9b05688c 0x9b05688c 0x9b05688c 0x9b05688c))
    (v128.store offset=992 (i32.const 0) (v128.const i32x4 0x1f83d9ab 0x1f83d9ab 0x1f83d9ab 0x1f83d9ab))
    (v128.store offset=1008 (i32.const 0) (v128.const i32x4 0x5be0cd19 0x5be0cd19 0x5be0cd19 0x5be0cd19))
    (loop $lanes
      (local.set $len (i32.load offset=4 (i32.add (local.get $d) (i32.shl (local.get $j) (i32.const 4)))))
      ;; A lane past $n has none (its descriptor is whatever the memory holds).
      (local.set $blocks
        (select
          (i32.const 0)
          (i32.shr_u (i32.sub (local.get $len) (i32.const 1)) (i32.const 6))
          (i32.or (i32.eqz (local.get $len)) (i32.ge_u (local.get $j) (local.get $n)))))
      (i32.store offset=192 (i32.shl (local.get $j) (i32.const 2)) (local.get $blocks))
      (if (i32.gt_u (local.get $blocks) (local.get $most)) (then (local.set $most (local.get $blocks))))
      (br_if $lanes (i32.lt_u (local.tee $j (i32.add (local.get $j) (i32.const 1))) (i32.const 4))))
    (block $done
      (loop $blocks
        (br_if $done (i32.ge_u (local.get $b) (local.get $most)))
        ;; W := block $b of input j in lane j; a lane without one reads BLOCK, and ignores it below.
        (local.set $j (i32.const 0))
        (loop $lanes
          (local.set $src
            (select
              (i32.add
                (i32.load (i32.add (local.get $d) (i32.shl (local.get $j) (i32.const 4))))
                (i32.shl (local.get $b) (i32.const 6)))
              (i32.const 128)
              (i32.lt_u (local.get $b) (i32.load offset=192 (i32.shl (local.get $j) (i32.const 2))))))
          (local.set $k (i32.const 0))
          (loop $words
            (i32.store offset=384
              (i32.add (i32.shl (local.get $k) (i32.const 4)) (i32.shl (local.get $j) (i32.const 2)))
              (i32.load (i32.add (local.get $src) (i32.shl (local.get $k) (i32.const 2)))))
            (br_if $words (i32.lt_u (local.tee $k (i32.add (local.get $k) (i32.const 1))) (i32.const 16))))
          (br_if $lanes (i32.lt_u (local.tee $j (i32.add (local.get $j) (i32.const 1))) (i32.const 4))))
        (call $schedule)
        ;; Counter 0 (the first chunk), a whole block, CHUNK_START on the first.
        (call $compress (i32.const 896) (v128.const i32x4 0 0 0 0) (i32.const 64) (i32.eqz (local.get $b)))
        (local.set $mask (i32x4.gt_u (v128.load offset=192 (i32.const 0)) (i32x4.splat (local.get $b))))
        (v128.store offset=896 (i32.const 0)
          (v128.bitselect (v128.load offset=640 (i32.const 0)) (v128.load offset=896 (i32.const 0)) (local.get $mask)))
        (v128.store offset=912 (i32.const 0)
          (v128.bitselect (v128.load offset=656 (i32.const 0)) (v128.load offset=912 (i32.const 0)) (local.get $mask)))
        (v128.store offset=928 (i32.const 0)
          (v128.bitselect (v128.load offset=672 (i32.const 0)) (v128.load offset=928 (i32.const 0)) (local.get $mask)))
        (v128.store offset=944 (i32.const 0)
          (v128.bitselect (v128.load offset=688 (i32.const 0)) (v128.load offset=944 (i32.const 0)) (local.get $mask)))
        (v128.store offset=960 (i32.const 0)
          (v128.bitselect (v128.load offset=704 (i32.const 0)) (v128.load offset=960 (i32.const 0)) (local.get $mask)))
        (v128.store offset=976 (i32.const 0)
          (v128.bitselect (v128.load offset=720 (i32.const 0)) (v128.load offset=976 (i32.const 0)) (local.get $mask)))
        (v128.store offset=992 (i32.const 0)
          (v128.bitselect (v128.load offset=736 (i32.const 0)) (v128.load offset=992 (i32.const 0)) (local.get $mask)))
        (v128.store offset=1008 (i32.const 0)
          (v128.bitselect (v128.load offset=752 (i32.const 0)) (v128.load offset=1008 (i32.const 0)) (local.get $mask)))
        (local.set $b (i32.add (local.get $b) (i32.const 1)))
        (br $blocks))))

  ;; The element of the input described at $d + 16 $lane, whose chaining value $chunks left in
  ;; lane $lane of CV4: its last block's 32 outputs, by groups of four.
  (func $element (param $d i32) (param $lane i32)
    (local $src i32) (local $len i32) (local $op i32) (local $out i32) (local $lane4 i32)
    (local $blocks i32) (local $flags i32) (local $counter v128) (local $g i32) (local $k i32)
    (local.set $d (i32.add (local.get $d) (i32.shl (local.get $lane) (i32.const 4))))
    (local.set $src (i32.load (local.get $d)))
    (local.set $len (i32.load offset=4 (local.get $d)))
    (local.set $op (i32.load offset=8 (local.get $d)))
    (local.set $out (i32.load offset=12 (local.get $d)))
    ;; A longer input is more than one chunk, which this module does not hash: the caller's bug.
    (if (i32.gt_u (local.get $len) (i32.const 1024)) (then unreachable))
    (local.set $lane4 (i32.shl (local.get $lane) (i32.const 2)))
    (local.set $blocks (i32.load offset=192 (local.get $lane4)))
    (v128.store offset=256 (i32.const 0) (v128.load32_splat offset=896 (local.get $lane4)))
    (v128.store offset=272 (i32.const 0) (v128.load32_splat offset=912 (local.get $lane4)))
    (v128.store offset=288 (i32.const 0) (v128.load32_splat offset=928 (local.get $lane4)))
    (v128.store offset=304 (i32.const 0) (v128.load32_splat offset=944 (local.get $lane4)))
    (v128.store offset=320 (i32.const 0) (v128.load32_splat offset=960 (local.get $lane4)))
    (v128.store offset=336 (i32.const 0) (v128.load32_splat offset=976 (local.get $lane4)))
    (v128.store offset=352 (i32.const 0) (v128.load32_splat offset=992 (local.get $lane4)))
    (v128.store offset=368 (i32.const 0) (v128.load32_splat offset=1008 (local.get $lane4)))
    (local.set $src (i32.add (local.get $src) (i32.shl (local.get $blocks) (i32.const 6))))
    (local.set $len (i32.sub (local.get $len) (i32.shl (local.get $blocks) (i32.const 6))))
    (memory.fill (i32.const 128) (i32.const 0) (i32.const 64))
    (memory.copy (i32.const 128) (local.get $src) (local.get $len))
    (loop $words
      (v128.store offset=384 (i32.shl (local.get $k) (i32.const 4))
        (v128.load32_splat offset=128 (i32.shl (local.get $k) (i32.const 2))))
      (br_if $words (i32.lt_u (local.tee $k (i32.add (local.get $k) (i32.const 1))) (i32.const 16))))
    (call $schedule)
    ;; CHUNK_START when it is the first block too, CHUNK_END | ROOT.
    (local.set $flags (i32.or (i32.eqz (local.get $blocks)) (i32.const 10)))
    (local.set $counter (v128.const i32x4 0 1 2 3))
    (loop $groups
      (call $compress (i32.const 256) (local.get $counter) (local.get $len) (local.get $flags))
      ;; $g is the group's byte offset in ACC (256 per group), $k a vector's in it.
      (if (i32.and (local.get $op) (i32.const 1))
        (then
          (local.set $k (i32.const 0))
          (loop $add
            (v128.store offset=1024 (i32.add (local.get $g) (local.get $k))
              (i16x8.add
                (v128.load offset=1024 (i32.add (local.get $g) (local.get $k)))
                (v128.load offset=640 (local.get $k))))
            (br_if $add (i32.lt_u (local.tee $k (i32.add (local.get $k) (i32.const 16))) (i32.const 256))))))
      (if (i32.and (local.get $op) (i32.const 2))
        (then
          (local.set $k (i32.const 0))
          (loop $subtract
            (v128.store offset=1024 (i32.add (local.get $g) (local.get $k))
              (i16x8.sub
                (v128.load offset=1024 (i32.add (local.get $g) (local.get $k)))
                (v128.load offset=640 (local.get $k))))
            (br_if $subtract (i32.lt_u (local.tee $k (i32.add (local.get $k) (i32.const 16))) (i32.const 256))))))
      (if (local.get $out)
        (then
          ;; Word k of block 4g + j goes to byte 64 (4g + j) + 4k of the element.
          (local.set $k (i32.const 0))
          (loop $write
            (i32.store offset=0
              (i32.add (i32.add (local.get $out) (local.get $g)) (i32.shr_u (local.get $k) (i32.const 2)))
              (i32x4.extract_lane 0 (v128.load offset=640 (local.get $k))))
            (i32.store offset=64
              (i32.add (i32.add (local.get $out) (local.get $g)) (i32.shr_u (local.get $k) (i32.const 2)))
              (i32x4.extract_lane 1 (v128.load offset=640 (local.get $k))))
            (i32.store offset=128
              (i32.add (i32.add (local.get $out) (local.get $g)) (i32.shr_u (local.get $k) (i32.const 2)))
              (i32x4.extract_lane 2 (v128.load offset=640 (local.get $k))))
            (i32.store offset=192
              (i32.add (i32.add (local.get $out) (local.get $g)) (i32.shr_u (local.get $k) (i32.const 2)))
              (i32x4.extract_lane 3 (v128.load offset=640 (local.get $k))))
            (br_if $write (i32.lt_u (local.tee $k (i32.add (local.get $k) (i32.const 16))) (i32.const 256))))))
      (local.set $counter (i32x4.add (local.get $counter) (v128.const i32x4 4 4 4 4)))
      (br_if $groups (i32.lt_u (local.tee $g (i32.add (local.get $g) (i32.const 256))) (i32.const 2048)))))

  ;; The elements of $count inputs, described from $descriptors (16 bytes each, see above), four
  ;; at a time.
  (func (export "elements") (param $descriptors i32) (param $count i32)
    (local $n i32) (local $j i32)
    (block $done
      (loop $groups
        (br_if $done (i32.eqz (local.get $count)))
        (local.set $n (select (local.get $count) (i32.const 4) (i32.lt_u (local.get $count) (i32.const 4))))
        (call $chunks (local.get $descriptors) (local.get $n))
        (local.set $j (i32.const 0))
        (loop $inputs
          (call $element (local.get $descriptors) (local.get $j))
          (br_if $inputs (i32.lt_u (local.tee $j (i32.add (local.get $j) (i32.const 1))) (local.get $n))))
        (local.set $descriptors (i32.add (local.get $descriptors) (i32.shl (local.get $n) (i32.const 4))))
        (local.set $count (i32.sub (local.get $count) (local.get $n)))
        (br $groups)))))
