package io.partita.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.ServiceLoader;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.partita.cache.CacheManager;
import io.partita.cache.KernelCreationException;
import io.partita.graph.GraphRuntime;
import io.partita.graph.InvalidArgumentException;
import io.partita.graph.MemoryLimitException;
import io.partita.graph.PartitaException;

/**
 * Every error path of the CLI as a user meets it: one line on stderr that names the item, the
 * documented exit code (2 for what the user gave), no stack trace unless {@code --verbose}.
 */
class CliErrorsTest {
    private static final GraphRuntime RUNTIME = GraphRuntime.standalone();
    private static final CacheManager CACHES = ServiceLoader.load(CacheManager.class).findFirst().orElseThrow();

    @TempDir
    static Path tmp;
    static Path mlp;

    @BeforeAll
    static void files() {
        Path root = Paths.get("..").toAbsolutePath().normalize();
        mlp = root.resolve("examples/mlp.json");
    }

    static CliRun.Result cli(String... args) {
        return CliRun.run(RUNTIME, args);
    }

    /** Exit 2, exactly one stderr line naming the problem, no trace anywhere. */
    static CliRun.Result badInput(String expected, String... args) {
        CliRun.Result r = cli(args);
        String all = "args " + List.of(args) + "\nstdout:\n" + r.out() + "\nstderr:\n" + r.err();
        assertEquals(PartitaCommand.BAD_INPUT, r.code(), all);
        assertEquals(1, r.errLines().size(), all);
        assertTrue(r.errLines().get(0).startsWith("partita: "), all);
        assertTrue(r.errLines().get(0).contains(expected), "expected '" + expected + "' in\n" + all);
        assertFalse(r.out().contains("Exception") || r.out().contains("\tat "), all);
        return r;
    }

    static Path write(String name, String content) throws Exception {
        Path p = tmp.resolve(name);
        Files.writeString(p, content);
        return p;
    }

    /** A one-op graph: Add of two f32 tensors of the given shape and strides. */
    static String add(String shape, String stride) {
        String t = "\"dtype\": \"f32\", \"shape\": " + shape + ", \"stride\": " + stride
                + ", \"layout_type\": \"strided\", \"property_type\": \"variable\"";
        return "{\"version\": \"3.0.0\", \"engine_kind\": \"cpu\", \"graph\": [{\"id\": 0, \"name\": \"a\", \"kind\": \"Add\","
                + " \"attrs\": {}, \"inputs\": [{\"id\": 0, " + t + "}, {\"id\": 1, " + t + "}], \"outputs\": [{\"id\": 2, "
                + t + "}]}]}";
    }

    @Test
    void filesThatAreNotGraphs() throws Exception {
        badInput("no such graph file", "run", tmp.resolve("missing.json").toString());
        badInput("empty.json", "run", write("empty.json", "").toString());
        badInput("truncated.json", "run", write("truncated.json", "{\"graph\": [ {\"id\": 0,").toString());
        badInput("unknown op kind 'Nope'", "run", write("nope.json", "{\"engine_kind\": \"cpu\", \"graph\": [{\"id\": 0, "
                + "\"kind\": \"Nope\", \"inputs\": [], \"outputs\": []}]}").toString());
        badInput("no such graph file", "partitions", tmp.resolve("missing.json").toString());
    }

    @Test
    void shapesAndStridesThatCannotBe() throws Exception {
        badInput("dim 0 is -5", "run", write("negdim.json", add("[-5, 3]", "[3, 1]")).toString());
        badInput("stride", "run", write("hugestride.json", add("[2, 3]", "[4611686018427387904, 1]")).toString(),
                "--check");
        badInput("stride", "run", write("negstride.json", add("[2, 3]", "[-3, 1]")).toString());
        // oneDNN's spelling of an unknown rank (INT64_MIN): refused at compile, which is still bad input
        badInput("unknown rank", "run", write("unknownrank.json",
                add("[-9223372036854775808]", "[-9223372036854775808]")).toString());
    }

    @Test
    void portsThatNameNoTensorAreAWarningNotSilence() throws Exception {
        String g = add("[2, 3]", "[3, 1]");
        Path ports = write("ports.json", g.replace("\"graph\":", "\"input_ports\": [0, 1, 999], \"output_ports\": [2, 7], \"graph\":"));
        CliRun.Result r = cli("run", ports.toString(), "--iterations", "1");
        assertEquals(0, r.code(), r.text());
        assertEquals(List.of("partita: warning: " + ports + ": input_ports [999] are not graph inputs (no op consumes"
                + " them, or an op produces them); ignored", "partita: warning: " + ports
                + ": output_ports [7] are produced by no op; ignored"), r.errLines());
    }

    @Test
    void options() throws Exception {
        badInput("--iterations must be >= 0, got -1", "run", mlp.toString(), "--iterations", "-1");
        badInput("--threads 0 is out of range", "run", mlp.toString(), "--threads", "0");
        badInput("'greedy' is not a policy", "run", mlp.toString(), "--policy", "greedy");
        CliRun.Result seed = badInput("'x' is not a long", "run", mlp.toString(), "--seed", "x");
        assertTrue(seed.err().contains("see 'partita run --help'"), seed.err());
        // ... and the help it points to exists, for every subcommand
        for (String command : List.of("run", "partitions", "conformance", "harness", "cache", "serve")) {
            CliRun.Result help = CliRun.run(RUNTIME, command, "--help");
            assertEquals(PartitaCommand.OK, help.code(), help.text());
            assertTrue(help.out().startsWith("Usage: partita " + command), help.out());
        }
        badInput("Unknown option: '--frobnicate'", "run", mlp.toString(), "--frobnicate");
        badInput("Unmatched argument", "frobnicate");
        badInput("--engine", "run", mlp.toString(), "--engine", "tpu");
        badInput("--engine gpu:x: the device index 'x' is not a non-negative number; expected e.g. gpu:1", "run",
                mlp.toString(), "--engine", "gpu:x");
        badInput("--engine gpu:-1: the device index '-1'", "run", mlp.toString(), "--engine", "gpu:-1");
    }

    /** The MHA example's four inputs for batch b and sequence length s, the mask's length m. */
    static String mha(int b, int s, int m) {
        String qkv = b + "x12x" + s + "x64";
        return "--in-shapes=0:" + qkv + "+1:" + qkv + "+2:" + qkv + "+4:" + b + "x1x1x" + m;
    }

    @Test
    void dynamicGraphsAndInShapes() throws Exception {
        Path root = Paths.get("..").toAbsolutePath().normalize();
        String mha = root.resolve("examples/mha_dynamic.json").toString();
        String mlp2 = root.resolve("examples/gated_mlp_dynamic.json").toString();
        badInput("graph input 0 f32[dyn,12,dyn,64] has dynamic dims, as do inputs 1, 2, 4; give their shapes with"
                + " --in-shapes=0:?x12x?x64+1:?x12x?x64+2:?x12x?x64+4:?x1x1x? (? = a positive size)", "run", mha);
        badInput("--in-shapes=99:2x768: tensor 99 is not in the graph; its inputs are [0, 1, 2, 3]", "run", mlp2,
                "--in-shapes=99:2x768");
        badInput("--in-shapes=4:2x3072: tensor 4 is computed by the graph, not one of its inputs", "run", mlp2,
                "--in-shapes=4:2x3072");
        badInput("--in-shapes=0:2x768x1: input 0 is f32[dyn,768] in the graph, rank 2, but 3 dims (2x768x1) are given",
                "run", mlp2, "--in-shapes=0:2x768x1");
        badInput("--in-shapes=0:2x512: dim 1 of input 0 is 512 but the graph declares it static, f32[dyn,768]", "run",
                mlp2, "--in-shapes=0:2x512");
        badInput("--in-shapes=0:0x768: dim 0 of tensor 0 is 0; expected a positive size", "run", mlp2,
                "--in-shapes=0:0x768");
        badInput("--in-shapes=0:-2x768: dim 0 of tensor 0 is -2; expected a positive size", "run", mlp2,
                "--in-shapes=0:-2x768");
        badInput("--in-shapes=banana: 'banana' is not ID:SHAPE; expected ID:AxBxC", "run", mlp2, "--in-shapes=banana");
        badInput("'2xbx768' in '0:2xbx768' is not a shape", "run", mlp2, "--in-shapes=0:2xbx768");
        badInput("'a' in 'a:2x768' is not a tensor id", "run", mlp2, "--in-shapes=a:2x768");
        badInput("'0:2x768*ba' gives a layout (*TAG or *STRIDES)", "run", mlp2, "--in-shapes=0:2x768*ba");
        badInput("--in-shapes=0:2x768+0:3x768: tensor 0 is given twice", "run", mlp2, "--in-shapes=0:2x768+0:3x768");
        badInput("input 4 f32[dyn,1,1,dyn] has dynamic dims but is not given; add +4:?x1x1x?", "run", mha,
                "--in-shapes=0:1x12x8x64+1:1x12x8x64+2:1x12x8x64");
        // every set is checked before anything runs, also the second
        badInput("dim 1 of input 0 is 10", "run", mlp2, "--in-shapes=0:2x768", "--in-shapes=0:2x10");
        // dynamic dims that must agree across inputs (the mask's length and the sequence length)
        badInput(mha(1, 8, 9) + ": these shapes do not fit " + mha + ": op 2 (Add \"mask_add\"): inputs 0 [1,12,8,8]"
                + " and 1 [1,1,1,9] cannot be broadcast", "run", mha, mha(1, 8, 9));
        badInput("tensor 0 f32[4611686018427387904,768] has more than 2^63-1 elements", "run", mlp2,
                "--in-shapes=0:4611686018427387904x768");
        badInput("graph input tensor 0 f32[99999999999,768] needs 279.4 TiB; the memory limit is", "run", mlp2,
                "--in-shapes=0:99999999999x768");
        badInput("--in-shapes=0:2x768x1: input 0 is f32[dyn,768] in the graph", "partitions", mlp2,
                "--in-shapes=0:2x768x1");
        badInput("--in-shapes=nope: 'nope' is not ID:SHAPE", "partitions", mlp2, "--in-shapes=nope");
        // a dynamic input's strides must be dense or all DYNAMIC_DIM: the compile error names them
        String dyn = "-9223372036854775807";
        badInput("compile input tensor 0 [dyn,3,5] has explicit strides [dyn,999,1]", "run",
                write("dynstride.json", add("[" + dyn + ", 3, 5]", "[" + dyn + ", 999, 1]")).toString(),
                "--in-shapes=0:2x3x5+1:2x3x5");
    }

    @Test
    void symbolicDimValues() throws Exception {
        badInput("--dim N=-3: expected a positive size", "run", mlp.toString(), "--dim", "N=-3");
        badInput("--dim N=0: expected a positive size", "partitions", mlp.toString(), "--dim", "N=0");
        badInput("is a graph JSON file", "run", mlp.toString(), "--dim", "N=2");
        Path onnx = Paths.get("..", "testdata", "corpus", "onnx-node", "test_relu", "model.onnx").toAbsolutePath();
        badInput("a value is given for dim 'Q', but no graph input has a symbolic dim of that name; the model has none",
                "run", onnx.toString(), "--dim", "Q=4");
    }

    @Test
    void otherCommands() throws Exception {
        Path onnx = Paths.get("..", "testdata", "corpus", "onnx-node", "test_relu", "model.onnx").toAbsolutePath();
        badInput("no such folder", "convert", onnx.toString(), tmp.resolve("no/such/dir/out.json").toString());
        badInput("it is a folder", "convert", onnx.toString(), tmp.toString());
        badInput("is not a .onnx file", "convert", mlp.toString(), tmp.resolve("out.json").toString());
        Path notAFolder = write("constants.txt", "");
        badInput("--constants " + notAFolder + ": exists and is not a folder", "convert", onnx.toString(),
                tmp.resolve("out2.json").toString(), "--constants", notAFolder.toString());
        Path cases = Paths.get("..", "testdata", "corpus", "benchdnn-graph", "harness-cases.tsv").toAbsolutePath();
        badInput("--filter '(' is not a regular expression: Unclosed group", "harness", cases.toString(), "--filter", "(");
        badInput("no such case file", "harness", tmp.resolve("none.tsv").toString());
        badInput("no such folder", "conformance", tmp.resolve("none").toString());
        badInput("--atol must be a finite number >= 0, got NaN", "conformance", tmp.toString(), "--atol", "NaN");
        badInput("'lots' is not a number of megabytes", "cache", "capacity", "cpu", "lots");
    }

    @Test
    void verbosePrintsTheStackTraceAndOnlyThen() throws Exception {
        Path bad = write("verbose.json", add("[-5, 3]", "[3, 1]"));
        CliRun.Result quiet = cli("run", bad.toString());
        assertFalse(quiet.err().contains("\tat "), quiet.err());
        CliRun.Result verbose = cli("run", bad.toString(), "--verbose");
        assertEquals(PartitaCommand.BAD_INPUT, verbose.code());
        assertTrue(verbose.errLines().get(0).startsWith("partita: "), verbose.err());
        assertTrue(verbose.err().contains("\tat io.partita."), verbose.err());
    }

    @Test
    void exitCodeFollowsTheCauseAndUnexpectedErrorsSayWhatTheyAre() {
        // a backend's kernel factory refusing a shape: the user's error, under a cache wrapper
        assertEquals(PartitaCommand.BAD_INPUT, CliErrors.exitCode(
                new KernelCreationException("kernel failed", new InvalidArgumentException("dim 3 too large"))));
        assertEquals(PartitaCommand.RUNTIME_ERROR, CliErrors.exitCode(new PartitaException("backend died")));
        assertEquals(PartitaCommand.RUNTIME_ERROR, CliErrors.exitCode(new NullPointerException()));
        assertEquals("internal error: java.lang.NullPointerException (rerun with --verbose for the stack trace, and"
                + " please report it)", CliErrors.message(new NullPointerException()));
        assertEquals("line one | line two", CliErrors.message(new PartitaException("line one\n   line two\n")));
        assertEquals(PartitaCommand.BAD_INPUT, CliErrors.exitCode(new MemoryLimitException("tensor 3", 1L << 40, 1L << 30)));
    }
}
