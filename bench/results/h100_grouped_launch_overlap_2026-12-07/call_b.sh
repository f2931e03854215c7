# Call B (session 48): the Python package built against the carried prefix; the Python GPU tests
# (the prepared GEMM among them, after 891d1ba's refactor); bench/python/grouped.py.
LOGNAME_=b; source tools/device_steps.sh
step python 260 env BUILD=build/release OUT=$OUT/python PYTEST_ARGS="$PWD/python/tests/test_grouped.py $PWD/python/tests/test_gemm_gpu.py" \
  bash tools/python_gpu_check.sh
tail -5 $OUT/python/pytest.log 2>/dev/null | tee -a "$LOG"
step python-bench 200 env PYTHONPATH=$PWD/build/python-site python3 bench/python/grouped.py \
  --reps 20 --json $OUT/grouped_python.json
python3 - <<'PY' | tee -a "$LOG"
import json, os
d = json.load(open(os.environ["OUT"] + "/grouped_python.json"))
for part in ("seed_experiment", "moe"):
    for name, v in d[part]["us"].items():
        print(part, name, round(v["graph_back_to_back_us"], 2), round(v["graph_us"], 2), round(v["eager_us"], 2))
print(d["seed_experiment"].get("host_us_per_call"))
PY
