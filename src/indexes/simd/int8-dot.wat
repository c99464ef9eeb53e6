;; Int8 quantization of unit vectors, and approximate cosines of every quantized row against a query, with SIMD128.
;; Built into int8-dot.wasm by scripts/build-wasm.mjs; loaded by int8-dot-kernel.ts.
;;
;; Memory layout, chosen by the caller (all offsets in bytes, 16-byte aligned):
;;   errorStats 2 x f32              the largest squared L2 norm of any row's quantization error, and of any
;;                                   dequantized row, over every row ever quantized
;;   query      rowBytes x i16       the query, component i scaled by queryScale, zero in the padding
;;   staged     n x rowBytes x f32   float rows waiting to be quantized, zero-padded
;;   halves     n x rowBytes x u16   float16 rows waiting to be widened into staged, zero-padded
;;   rows       rowCount x rowBytes  int8 rows: component i is round(x[i] / rowScale[row]), zero-padded
;;   rowScales  rowCount x f32       the step of each row's quantization
;;   scores     rowCount x f32       (row . query) * rowScale[row] * queryScaleInverse
;;
;; rowBytes is a multiple of 16, so any dimension count works and no loop has a tail.
(module
  ;; Shared, so that a second thread can score part of the rows of a large search (scan-helper.ts); 65536 pages
  ;; (4 GB) is wasm32's whole address space.
  (import "env" "memory" (memory 1 65536 shared))

  ;; Quantizes each staged row with its own scale: its largest |component| becomes 127, so a row never depends
  ;; on the others. Records the error so that the caller can bound how far scores may be from exact cosines.
  (func $quantizeRows (export "quantizeRows")
    (param $staged i32) (param $rowCount i32) (param $rowBytes i32)
    (param $rows i32) (param $rowScales i32) (param $errorStats i32)
    (local $source i32)          ;; current 4 floats of the staged row
    (local $sourceEnd i32)       ;; end of the staged row
    (local $target i32)          ;; where their 4 int8 levels go
    (local $rowsLeft i32)
    (local $values v128)
    (local $largest v128)        ;; lane-wise largest |component|, then the row's largest in every lane
    (local $step f32)
    (local $steps v128)
    (local $inverseSteps v128)
    (local $shifted v128)        ;; scaled components plus 1.5 x 2^23: see pass 2
    (local $levels v128)
    (local $dequantized v128)
    (local $error v128)
    (local $errorSquares v128)
    (local $normSquares v128)

    (local.set $source (local.get $staged))
    (local.set $target (local.get $rows))
    (local.set $rowsLeft (local.get $rowCount))
    (block $allRowsQuantized
      (loop $eachRow
        (br_if $allRowsQuantized (i32.eqz (local.get $rowsLeft)))
        (local.set $sourceEnd (i32.add (local.get $source) (i32.shl (local.get $rowBytes) (i32.const 2))))

        ;; Pass 1: the largest |component| of the row. pmax is one maxps; max would add NaN handling we do not need.
        (local.set $largest (v128.const f32x4 0 0 0 0))
        (loop $eachLargest
          (local.set $largest (f32x4.pmax (local.get $largest) (f32x4.abs (v128.load (local.get $source)))))
          (local.set $source (i32.add (local.get $source) (i32.const 16)))
          (br_if $eachLargest (i32.lt_u (local.get $source) (local.get $sourceEnd))))
        (local.set $largest (f32x4.pmax (local.get $largest) (call $swapHalves (local.get $largest))))
        (local.set $step
          (f32.div
            (f32.max (f32x4.extract_lane 0 (local.get $largest)) (f32x4.extract_lane 1 (local.get $largest)))
            (f32.const 127)))
        (f32.store (local.get $rowScales) (local.get $step))
        (local.set $steps (f32x4.splat (local.get $step)))
        ;; A zero row has step 0: scale it by 0 rather than infinity, so its levels are 0 rather than NaN.
        (local.set $inverseSteps
          (f32x4.splat
            (select (f32.div (f32.const 1) (local.get $step)) (f32.const 0) (f32.gt (local.get $step) (f32.const 0)))))

        ;; Pass 2: levels = nearest(component / step), narrowed to 4 bytes; error and norm summed as we go.
        ;; Rounding: adding 1.5 x 2^23 to a float below 2^22 in magnitude rounds it to an integer (the spacing of
        ;; floats there is 1, ties to even) held in the low mantissa bits. Subtracting the constant as integer bits
        ;; gives the level as i32, subtracting it as a float gives it as f32: cheaper than nearest + trunc_sat,
        ;; notably before V8 has tiered the function up, which is when a snapshot is loaded at start-up.
        (local.set $source (i32.sub (local.get $sourceEnd) (i32.shl (local.get $rowBytes) (i32.const 2))))
        (local.set $errorSquares (v128.const f32x4 0 0 0 0))
        (local.set $normSquares (v128.const f32x4 0 0 0 0))
        (loop $eachLevel
          (local.set $values (v128.load (local.get $source)))
          (local.set $shifted
            (f32x4.add (f32x4.mul (local.get $values) (local.get $inverseSteps)) (v128.const f32x4 0x1.8p23 0x1.8p23 0x1.8p23 0x1.8p23)))
          (local.set $levels (i32x4.sub (local.get $shifted) (v128.const i32x4 0x4B400000 0x4B400000 0x4B400000 0x4B400000)))
          (v128.store32_lane 0 (local.get $target)
            (i8x16.narrow_i16x8_s
              (i16x8.narrow_i32x4_s (local.get $levels) (local.get $levels))
              (i16x8.narrow_i32x4_s (local.get $levels) (local.get $levels))))
          (local.set $dequantized
            (f32x4.mul (f32x4.sub (local.get $shifted) (v128.const f32x4 0x1.8p23 0x1.8p23 0x1.8p23 0x1.8p23)) (local.get $steps)))
          (local.set $error (f32x4.sub (local.get $values) (local.get $dequantized)))
          (local.set $errorSquares (f32x4.add (local.get $errorSquares) (f32x4.mul (local.get $error) (local.get $error))))
          (local.set $normSquares (f32x4.add (local.get $normSquares) (f32x4.mul (local.get $dequantized) (local.get $dequantized))))
          (local.set $source (i32.add (local.get $source) (i32.const 16)))
          (local.set $target (i32.add (local.get $target) (i32.const 4)))
          (br_if $eachLevel (i32.lt_u (local.get $source) (local.get $sourceEnd))))
        (f32.store (local.get $errorStats)
          (f32.max (f32.load (local.get $errorStats)) (call $sumLanes (local.get $errorSquares))))
        (f32.store offset=4 (local.get $errorStats)
          (f32.max (f32.load offset=4 (local.get $errorStats)) (call $sumLanes (local.get $normSquares))))

        (local.set $rowScales (i32.add (local.get $rowScales) (i32.const 4)))
        (local.set $rowsLeft (i32.sub (local.get $rowsLeft) (i32.const 1)))
        (br $eachRow))))

  ;; Quantizes float16 rows as quantizeRows does their values: widened into the staged rows first, exactly (every
  ;; float16 value is a float32 value). Rows read from a snapshot are float16: widened here, eight values at a time,
  ;; rather than looked up one by one in JavaScript.
  (func (export "quantizeHalfRows")
    (param $halves i32) (param $staged i32) (param $rowCount i32) (param $rowBytes i32)
    (param $rows i32) (param $rowScales i32) (param $errorStats i32)
    (local $end i32)
    (local $eight v128)
    (local.set $end (i32.add (local.get $halves) (i32.shl (i32.mul (local.get $rowCount) (local.get $rowBytes)) (i32.const 1))))
    (block $allWidened
      (loop $each8
        (br_if $allWidened (i32.ge_u (local.get $halves) (local.get $end)))
        (local.set $eight (v128.load (local.get $halves)))
        (v128.store (local.get $staged) (call $widen4 (i32x4.extend_low_i16x8_u (local.get $eight))))
        (v128.store offset=16 (local.get $staged) (call $widen4 (i32x4.extend_high_i16x8_u (local.get $eight))))
        (local.set $halves (i32.add (local.get $halves) (i32.const 16)))
        (local.set $staged (i32.add (local.get $staged) (i32.const 32)))
        (br $each8)))
    (call $quantizeRows
      (i32.sub (local.get $staged) (i32.shl (i32.mul (local.get $rowCount) (local.get $rowBytes)) (i32.const 2)))
      (local.get $rowCount) (local.get $rowBytes) (local.get $rows) (local.get $rowScales) (local.get $errorStats)))

  ;; Four float16 bit patterns (one a lane) as float32: the exponent and mantissa moved into a float's place and
  ;; multiplied by 2^112 give the value, subnormals included (2^112 is the difference of the two exponent biases);
  ;; the sign goes back as a bit. Infinities and NaNs, which no unit vector holds, come out as large finite values.
  (func $widen4 (param $bits v128) (result v128)
    (v128.or
      (f32x4.mul
        (i32x4.shl (v128.and (local.get $bits) (v128.const i32x4 0x7fff 0x7fff 0x7fff 0x7fff)) (i32.const 13))
        (v128.const f32x4 0x1p112 0x1p112 0x1p112 0x1p112))
      (i32x4.shl (v128.and (local.get $bits) (v128.const i32x4 0x8000 0x8000 0x8000 0x8000)) (i32.const 16))))

  ;; The upper 64 bits of a vector in its lower half and the reverse, for horizontal sums and maxima.
  (func $swapHalves (param $lanes v128) (result v128)
    (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $lanes) (local.get $lanes)))

  (func $sumLanes (param $lanes v128) (result f32)
    (f32.add
      (f32.add (f32x4.extract_lane 0 (local.get $lanes)) (f32x4.extract_lane 1 (local.get $lanes)))
      (f32.add (f32x4.extract_lane 2 (local.get $lanes)) (f32x4.extract_lane 3 (local.get $lanes)))))

  ;; Scores every row, removed ones included (the caller skips them), in one pass over the int8 rows: they are all
  ;; of a search's memory traffic, and this scan runs at memory bandwidth. Measured no faster: two rows per
  ;; iteration sharing the query loads, and an 8-bit query with extmul + extadd_pairwise.
  (func (export "scoreRows")
    (param $query i32) (param $rows i32) (param $rowCount i32) (param $rowBytes i32)
    (param $rowScales i32) (param $scores i32) (param $queryScaleInverse f32)
    (local $row i32)       ;; start of the current row
    (local $rowsEnd i32)   ;; end of the last row
    (local $rowEnd i32)    ;; end of the current row
    (local $byte i32)      ;; current 16 bytes of the row
    (local $queryLane i32) ;; the matching 16 query components (32 bytes)
    (local $sumLow v128)   ;; two independent i32x4 accumulators keep two multiply-adds in flight
    (local $sumHigh v128)

    (local.set $row (local.get $rows))
    (local.set $rowsEnd (i32.add (local.get $rows) (i32.mul (local.get $rowCount) (local.get $rowBytes))))
    (block $allRowsScored
      (loop $eachRow
        (br_if $allRowsScored (i32.ge_u (local.get $row) (local.get $rowsEnd)))
        (local.set $rowEnd (i32.add (local.get $row) (local.get $rowBytes)))
        (local.set $byte (local.get $row))
        (local.set $queryLane (local.get $query))
        (local.set $sumLow (v128.const i32x4 0 0 0 0))
        (local.set $sumHigh (v128.const i32x4 0 0 0 0))

        ;; load8x8_s widens 8 row bytes to i16 as it loads (one pmovsxbw), and dot_i16x8_s
        ;; multiplies i16 pairs and adds adjacent products into i32 lanes (one pmaddwd).
        ;; |int8 x i16| <= 127 x 32767, so no pair can overflow its i32 lane; the caller keeps the
        ;; whole sum inside i32 (and i32 adds wrap, so partial sums may overflow harmlessly).
        (loop $each16Bytes
          (local.set $sumLow
            (i32x4.add (local.get $sumLow)
              (i32x4.dot_i16x8_s
                (v128.load8x8_s (local.get $byte))
                (v128.load (local.get $queryLane)))))
          (local.set $sumHigh
            (i32x4.add (local.get $sumHigh)
              (i32x4.dot_i16x8_s
                (v128.load8x8_s offset=8 (local.get $byte))
                (v128.load offset=16 (local.get $queryLane)))))
          (local.set $byte (i32.add (local.get $byte) (i32.const 16)))
          (local.set $queryLane (i32.add (local.get $queryLane) (i32.const 32)))
          (br_if $each16Bytes (i32.lt_u (local.get $byte) (local.get $rowEnd))))

        ;; Horizontal sum of the four lanes: add the upper half onto the lower, then lanes 0 + 1.
        (local.set $sumLow (i32x4.add (local.get $sumLow) (local.get $sumHigh)))
        (local.set $sumLow (i32x4.add (local.get $sumLow) (call $swapHalves (local.get $sumLow))))
        (f32.store (local.get $scores)
          (f32.mul
            (f32.mul
              (f32.convert_i32_s
                (i32.add (i32x4.extract_lane 0 (local.get $sumLow)) (i32x4.extract_lane 1 (local.get $sumLow))))
              (f32.load (local.get $rowScales)))
            (local.get $queryScaleInverse)))

        (local.set $row (local.get $rowEnd))
        (local.set $rowScales (i32.add (local.get $rowScales) (i32.const 4)))
        (local.set $scores (i32.add (local.get $scores) (i32.const 4)))
        (br $eachRow)))))
