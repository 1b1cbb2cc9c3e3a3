"""Writes the hostile graph JSON files of hostile.sh into the folder given (from examples/mlp.json)."""
import copy
import json
import sys

out, mlp_path = sys.argv[1], sys.argv[2]
mlp = json.load(open(mlp_path))


def write(name, obj):
    with open(f"{out}/{name}", "w") as f:
        f.write(obj if isinstance(obj, str) else json.dumps(obj))


def add(name, shape, stride=None):
    """One Add of two f32 tensors; dense strides unless given."""
    if stride is None:
        stride, acc = [], 1
        for d in reversed(shape):
            stride.insert(0, acc)
            acc *= d
    t = lambda i: {"id": i, "dtype": "f32", "shape": shape, "stride": stride, "layout_type": "strided",
                   "property_type": "variable"}
    write(name, {"version": "3.0.0", "engine_kind": "cpu", "fpmath_mode": "strict",
                 "graph": [{"id": 0, "name": "a", "kind": "Add", "attrs": {}, "inputs": [t(0), t(1)], "outputs": [t(2)]}]})


def mutated(name, change):
    m = copy.deepcopy(mlp)
    change(m)
    write(name, m)


add("add30k.json", [30000, 30000])
add("add1e5cube.json", [100000, 100000, 100000])
add("dimmax.json", [2**63 - 1])
add("dim2p62.json", [2**62, 4])
add("stride2p62.json", [2, 3], [2**62, 1])
add("negstride.json", [2, 3], [-3, 1])
add("negdim.json", [-5, 3], [3, 1])
DYN = -2**63 + 1  # DYNAMIC_DIM
add("dynstride.json", [DYN, 3, 5], [DYN, 999, 1])
first_in = lambda m: m["graph"][0]["inputs"][0]
mutated("ports999.json", lambda m: m.update(input_ports=[999]))
mutated("baddtype.json", lambda m: first_in(m).update(dtype="f33"))
mutated("shapemismatch.json", lambda m: first_in(m).update(shape=[64, 785]))
mutated("badattr.json", lambda m: m["graph"][0]["attrs"].update(transpose_a={"type": "bool", "value": "yes"}))
mutated("twoproducers.json", lambda m: m["graph"][1].update(outputs=m["graph"][0]["outputs"]))
mutated("rank0.json", lambda m: first_in(m).update(shape=[], stride=[]))
mutated("dynamicdim.json", lambda m: first_in(m).update(shape=[64, -1]))
mutated("unknownrank.json", lambda m: first_in(m).update(shape=[-2**63], stride=[-2**63]))
mutated("cycle.json", lambda m: first_in(m).update(id=m["graph"][-1]["outputs"][0]["id"],
                                                   shape=m["graph"][-1]["outputs"][0]["shape"]))
write("empty.json", "")
write("notjson.json", '{"graph": [ {"id": 0,')
write("array.json", "[1,2,3]")
write("nograph.json", '{"version":"3.0.0","engine_kind":"cpu"}')
write("emptygraph.json", '{"version":"3.0.0","engine_kind":"cpu","graph":[]}')
write("deep.json", "[" * 100000 + "]" * 100000)
write("binary.json", bytes(range(256)).decode("latin1"))
