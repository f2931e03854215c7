# Call B (session 47): the Python package built against the carried prefix; the grouped Python
# tests on the GPU (the prepared GEMM among them); bench/python/grouped.py (seed and MoE beside
# torch, the prepared run among the contenders).
LOGNAME_=b; source tools/device_steps.sh
step python 240 env BUILD=build/release OUT=$OUT/python PYTEST_ARGS="$PWD/python/tests/test_grouped.py" \
  bash tools/python_gpu_check.sh
tail -5 $OUT/python/pytest.log 2>/dev/null | tee -a "$LOG"
step python-bench 200 env PYTHONPATH=$PWD/build/python-site python3 bench/python/grouped.py \
  --reps 20 --json $OUT/grouped_python.json
python3 tools/bench_medians.py $OUT/grouped_python.json | tee -a "$LOG"
