# Session 49's device call (H200 wanted; an H100 serves the diagnosis): a per-CTA timeline of the
# seed's launches (timeline variant), the seed with the prepared run (issue 16's <= 30 us) against
# three variants, and the seed's DRAM traffic per kernel — in that order of value (DEADLINE).
LOGNAME_=a; source tools/device_steps.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader | tee -a "$LOG"
cfg=fp16_fp16_tt_cooperative_s4_b2_1x1_grouped_dynamic
seed=(bench grouped --shapes 50x1024 --dtype fp16 --layout tt --mix seed)
patch -p1 < bench/variants/grouped_tile_timeline.patch >> "$LOG"
step timeline-compile 90 $B/warploom precompile -j 16 $cfg
step timeline 60 sh -c "$B/warploom ${seed[*]} --providers warploom_prepared --graph 20 --reps 10 \
  --no-check > $OUT/timeline.txt 2>&1"
patch -p1 -R < bench/variants/grouped_tile_timeline.patch >> "$LOG"
python3 tools/tile_timeline.py $OUT/timeline.txt >> "$LOG" 2>&1
xz -9 $OUT/timeline.txt
step precompile 90 $B/warploom precompile -j 16 $cfg
step seed 45 $B/warploom "${seed[@]}" --providers warploom,warploom_prepared,cutlass_grouped \
  --graph 20 --reps 30 --json $OUT/seed.json
for v in first_tile_before_wait l2_prefetch_ahead4 l2_prefetch_ahead8; do
  patch -p1 < bench/variants/grouped_$v.patch >> "$LOG"
  step $v-compile 90 $B/warploom precompile -j 16 $cfg
  step seed-$v 45 $B/warploom "${seed[@]}" --providers warploom_prepared,cutlass_grouped \
    --graph 20 --reps 30 --json $OUT/seed_$v.json
  patch -p1 -R < bench/variants/grouped_$v.patch >> "$LOG"
done
metrics=gpu__time_duration.sum,sm__cycles_elapsed.max,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,dram__throughput.avg.pct_of_peak_sustained_elapsed
step ncu-seed 60 sh -c "ncu --metrics $metrics -k regex:'grouped|device_kernel' --csv \
  $B/warploom ${seed[*]} --providers warploom_prepared,cutlass_grouped --reps 3 \
  --no-check > $OUT/seed_ncu.csv"
step seed-sustained 60 $B/warploom "${seed[@]}" --providers warploom_prepared,cutlass_grouped \
  --graph 20 --reps 30 --regime sustained --json $OUT/seed_sustained.json
python3 tools/bench_medians.py $OUT/seed.json $OUT/seed_first_tile_before_wait.json \
  $OUT/seed_l2_prefetch_ahead4.json $OUT/seed_l2_prefetch_ahead8.json $OUT/seed_sustained.json | tee -a "$LOG"
