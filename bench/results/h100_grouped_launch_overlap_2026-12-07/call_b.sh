# Call B (session 48): the Python package built against the carried prefix; the Python GPU tests
# (the prepared GEMM among them, after 891d1ba's refactor); bench/python/grouped.py.
LOGNAME_=b; source tools/device_steps.sh
step python 260 env BUILD=build/release OUT=$OUT/python PYTEST_ARGS="$PWD/python/tests/test_grouped.py $PWD/python/tests/test_gemm_gpu.py" \
  bash tools/python_gpu_check.sh
tail -5 $OUT/python/pytest.log 2>/dev/null | tee -a "$LOG"
step python-bench 200 env PYTHONPATH=$PWD/build/python-site python3 bench/python/grouped.py \
  --reps 20 --json $OUT/grouped_python.json
python3 tools/bench_medians.py $OUT/grouped_python.json | tee -a "$LOG"
