#!/bin/bash
# Hostile inputs through the built CLI, as a user would give them; prints a markdown table
# (case, command, exit code, stderr lines, first stderr line, whether a stack trace appeared).
# Usage, from the repository root after the build: tools/hostile/hostile.sh
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
P=${P:-$ROOT/distribution/target/partita/bin/partita}
EX=$ROOT/examples
H=$(mktemp -d /tmp/partita-hostile-XXXXXX)
OUT=${OUT:-$H/runs}
python3 "$ROOT/tools/hostile/json_files.py" "$H" "$EX/mlp.json"
python3 "$ROOT/tools/hostile/onnx_files.py" "$H"
printf 'not a protobuf at all' > "$H/garbage.onnx"
head -c 100 /dev/urandom > "$H/random.onnx"
: > "$H/empty.onnx"
cases=(
"missing file|run /nonexistent/g.json"
"empty json|run $H/empty.json"
"truncated json|run $H/notjson.json"
"json array|run $H/array.json"
"binary json|run $H/binary.json"
"no graph field|run $H/nograph.json"
"empty graph|run $H/emptygraph.json"
"deep nesting 1e5|run $H/deep.json"
"unknown dtype|run $H/baddtype.json"
"shape mismatch|run $H/shapemismatch.json"
"bad attr value|run $H/badattr.json"
"two producers|run $H/twoproducers.json"
"cycle|run $H/cycle.json"
"rank-0 matmul input|run $H/rank0.json"
"unknown-rank input json|run $H/unknownrank.json"
"dynamic dim json|run $H/dynamicdim.json"
"negative dim|run $H/negdim.json"
"dim 2^63-1|run $H/dimmax.json"
"dims [2^62,4]|run $H/dim2p62.json"
"stride 2^62|run $H/stride2p62.json --check"
"negative stride|run $H/negstride.json"
"input_ports [999]|run $H/ports999.json --iterations 1"
"30000^2 add|run $H/add30k.json --check"
"1e5^3 add|run $H/add1e5cube.json --check"
"onnx empty|run $H/empty.onnx"
"onnx garbage|run $H/garbage.onnx"
"onnx random bytes|run $H/random.onnx"
"onnx truncated|run $H/truncated.onnx"
"onnx opset 99|run $H/opset99.onnx"
"onnx unknown op|run $H/unknownop.onnx"
"onnx unknown rank input|run $H/unknownrank.onnx"
"onnx symbolic dim, no --dim|run $H/symbolic.onnx"
"onnx --dim N=-3|run $H/symbolic.onnx --dim N=-3"
"onnx --dim unknown name|run $H/symbolic.onnx --dim N=2 --dim Q=4"
"onnx --dim N=2^63-1|run $H/symbolic.onnx --dim N=9223372036854775807"
"onnx --dim N=abc|run $H/symbolic.onnx --dim N=abc"
"onnx input 1e5^3|run $H/huge1e5.onnx --check"
"onnx 6e8-float initializer, no data|run $H/hugeinit.onnx"
"onnx raw_data too short|run $H/shortraw.onnx"
"onnx dangling node input|run $H/danglinginput.onnx"
"dynamic graph, no --in-shapes|run $EX/mha_dynamic.json"
"--in-shapes unknown id|run $EX/gated_mlp_dynamic.json --in-shapes=99:2x768"
"--in-shapes internal tensor|run $EX/gated_mlp_dynamic.json --in-shapes=4:2x3072"
"--in-shapes wrong rank|run $EX/gated_mlp_dynamic.json --in-shapes=0:2x768x1"
"--in-shapes static dim changed|run $EX/gated_mlp_dynamic.json --in-shapes=0:2x512"
"--in-shapes dim 0|run $EX/gated_mlp_dynamic.json --in-shapes=0:0x768"
"--in-shapes negative dim|run $EX/gated_mlp_dynamic.json --in-shapes=0:-2x768"
"--in-shapes garbage|run $EX/gated_mlp_dynamic.json --in-shapes=banana"
"--in-shapes empty|run $EX/gated_mlp_dynamic.json --in-shapes="
"--in-shapes not a shape|run $EX/gated_mlp_dynamic.json --in-shapes=0:2xbx768"
"--in-shapes layout tag|run $EX/gated_mlp_dynamic.json --in-shapes=0:2x768*ba"
"--in-shapes id twice|run $EX/gated_mlp_dynamic.json --in-shapes=0:2x768+0:3x768"
"--in-shapes bad second set|run $EX/gated_mlp_dynamic.json --in-shapes=0:2x768 --in-shapes=0:2x10"
"--in-shapes dynamic input missing|run $EX/mha_dynamic.json --in-shapes=0:1x12x8x64+1:1x12x8x64+2:1x12x8x64"
"--in-shapes mask length != sequence|run $EX/mha_dynamic.json --in-shapes=0:1x12x8x64+1:1x12x8x64+2:1x12x8x64+4:1x1x1x9"
"--in-shapes 2^62 rows|run $EX/gated_mlp_dynamic.json --in-shapes=0:4611686018427387904x768"
"partitions --in-shapes wrong rank|partitions $EX/gated_mlp_dynamic.json --in-shapes=0:2x768x1"
"dynamic strides [dyn,999,1]|run $H/dynstride.json --in-shapes=0:2x3x5+1:2x3x5"
"--threads 0|run $EX/mlp.json --threads 0"
"--threads 100000|run $EX/mlp.json --threads 100000"
"--threads abc|run $EX/mlp.json --threads abc"
"--iterations -1|run $EX/mlp.json --iterations -1"
"--policy greedy|run $EX/mlp.json --policy greedy"
"--engine tpu|run $EX/mlp.json --engine tpu"
"--seed x|run $EX/mlp.json --seed x"
"unknown option|run $EX/mlp.json --frobnicate"
"unknown command|frobnicate"
"partitions missing file|partitions /nonexistent.json"
"convert to missing folder|convert $H/symbolic.onnx /nonexistent/dir/out.json --dim N=2"
"convert json input|convert $EX/mlp.json $H/x.json"
"convert --constants to a file|convert $ROOT/testdata/corpus/onnx-node/test_add/model.onnx $H/out.json --constants /etc/passwd"
"harness missing file|harness /nonexistent.tsv"
"harness bad regex|harness $ROOT/testdata/corpus/benchdnn-graph/harness-cases.tsv --filter ("
"conformance missing dir|conformance /nonexistent"
"cache bad capacity|cache capacity cpu lots"
"train-startup missing graph|train-startup /nonexistent.json"
"train-startup no graph|train-startup --iterations 3"
)
echo "| input | command | exit | stderr lines | message (first stderr line) | trace |"
echo "|---|---|---|---|---|---|"
for c in "${cases[@]}"; do
  name=${c%%|*}; args=${c#*|}
  O=$OUT/$(echo "$name" | tr -c 'a-zA-Z0-9\n' '_'); mkdir -p "$OUT"
  timeout 300 $P $args > $O.out 2> $O.err0 < /dev/null; code=$?
  grep -v 'WARNING: Using incubator modules' $O.err0 > $O.err
  nerr=$(grep -vc '^$' $O.err)
  first=$(grep -v '^$' $O.err | head -1 | cut -c1-220 | sed 's/|/\\|/g')
  tr=no; if grep -qE '^\s+at |Exception in thread|Exception:|Error:' $O.out $O.err; then tr=YES; fi
  if [ -z "$first" ]; then first="(stdout) $(grep -E 'partita:|error' $O.out | head -1 | cut -c1-200 | sed 's/|/\\|/g')"; fi
  short=$(echo "$args" | sed "s#$H/##g; s#$EX/#examples/#g; s#$ROOT/##g")
  echo "| $name | \`$short\` | $code | $nerr | $first | $tr |"
done
echo
echo "inputs and outputs: $H"
