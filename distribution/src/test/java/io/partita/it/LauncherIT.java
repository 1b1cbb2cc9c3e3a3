package io.partita.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.Test;

/** The assembled distribution's {@code bin/partita} script, run as a user would. */
public class LauncherIT {

    /** Output and exit code of a launcher run. */
    record Run(int code, String out) {
    }

    static Run partita(String stdin, String... args) throws IOException, InterruptedException {
        return partitaWithJavaOpts(null, stdin, args);
    }

    static Run partitaWithJavaOpts(String javaOpts, String stdin, String... args)
            throws IOException, InterruptedException {
        return partitaWithEnv(javaOpts == null ? java.util.Map.of() : java.util.Map.of("PARTITA_JAVA_OPTS", javaOpts),
                stdin, args);
    }

    static Run partitaWithEnv(java.util.Map<String, String> env, String stdin, String... args)
            throws IOException, InterruptedException {
        Path home = ContainerSupport.home().toAbsolutePath();
        List<String> cmd = new ArrayList<>();
        cmd.add(home.resolve("bin/partita").toString());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        env.forEach((k, v) -> { // a null value removes the variable
            if (v == null) {
                pb.environment().remove(k);
            } else {
                pb.environment().put(k, v);
            }
        });
        Process p = pb.start();
        if (stdin != null) {
            p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
        }
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue("finished in time", p.waitFor(120, TimeUnit.SECONDS));
        return new Run(p.exitValue(), out);
    }

    static Path example(String name) {
        return ContainerSupport.home().resolve("examples").resolve(name).toAbsolutePath();
    }

    @Test
    public void runWithCheckOnTheMlpExample() throws Exception {
        Run r = partita(null, "run", example("mlp.json").toString(), "--iterations", "3", "--threads", "2", "--check");
        assertEquals(r.out, 0, r.code);
        assertTrue(r.out, r.out.contains("partitions (policy fusion)"));
        // the DNNL-style backend fuses the three layers and packs their weights once, on the first iteration
        // (7.x MB: the three weight matrices, the last one padded to whole column panels)
        assertTrue(r.out, r.out.contains("dnnl       matmul_bias_relu"));
        assertTrue(r.out, r.out.matches("(?s).*first iteration: [^\\n]*\\(constants: 3 prepared, \\+7\\.[0-9] MB cached, 0 reused\\).*"));
        assertTrue(r.out, r.out.matches("(?s).*steady state over 3 iterations: median [^\\n]*\\(constants: 9 reused\\).*"));
        assertTrue(r.out, r.out.contains("check: all 1 outputs match the reference backend"));
    }

    /**
     * The gpu engine in the container: JOCL loads from its own bundle, the MLP runs on the OpenCL
     * device (PoCL in CI) with its six constant inputs copied to the device once, and matches the
     * reference; PID io.partita.gpu disables it and a bad MatMul kernel name is refused.
     */
    @Test
    public void theGpuEngineRunsTheMlpInTheContainerAndFollowsItsConfiguration() throws Exception {
        Run r = partita(null, "run", example("mlp.json").toString(), "--iterations", "3", "--engine", "gpu:0", "--check");
        assertEquals(r.out, 0, r.code);
        assertTrue(r.out, r.out.contains("gpu        graph_of_3_kernels"));
        assertTrue(r.out, r.out.matches("(?s).*first iteration: [^\\n]*\\(constants: 6 prepared, .*"));
        assertTrue(r.out, r.out.matches("(?s).*steady state over 3 iterations: median [^\\n]*\\(constants: 18 reused\\).*"));
        assertTrue(r.out, r.out.contains("check: all 1 outputs match the reference backend"));
        Run b = partita(null, "backends");
        assertTrue(b.out, b.out.matches("(?s).*\\ngpu +100 +gpu +active +0\\.1 +OpenCL, \\d+ devices?\\n +gpu\\.0: .*driver .*memory .*extensions: .*"));
        Path cfg = ContainerSupport.home().resolve("conf").resolve("io.partita.gpu.cfg");
        Files.writeString(cfg, "enabled = false\nmatmul.kernel = fastest\n");
        try {
            Run off = partita(null, "backends");
            assertTrue(off.out, off.out.matches("(?s).*\\ngpu +100 +gpu +disabled .*disabled \\(io\\.partita\\.gpu enabled=false\\).*"));
            assertTrue(off.out, off.out.contains("matmul kernel 'fastest': expected auto, tiled or rows"));
        } finally {
            Files.deleteIfExists(cfg);
        }
    }

    /**
     * PoCL (LLVM) replaces the JVM's SIGSEGV/SIGBUS/SIGILL/SIGFPE handlers when the gpu engine opens its
     * device; the launcher preloads libjsig, so the JVM's stay first (-Xcheck:jni reports any handler
     * that was replaced). With chaining switched off the handlers are replaced and the gpu backend
     * warns, naming the fix: what an application embedding Partita without the launcher would see.
     */
    @Test
    public void theLauncherKeepsTheJvmSignalHandlersWhenPoclOpensTheDevice() throws Exception {
        Path kernels = Files.createTempDirectory("partita-pocl-cache-"); // PoCL compiles in-process: nothing cached
        try {
            java.util.Map<String, String> env = new java.util.HashMap<>(java.util.Map.of(
                    "PARTITA_JAVA_OPTS", "-Xcheck:jni", "POCL_CACHE_DIR", kernels.toString()));
            Run on = partitaWithEnv(env, null, "run", example("mlp.json").toString(), "--iterations", "2",
                    "--engine", "gpu:0");
            assertEquals(on.out, 0, on.code);
            assertFalse(on.out, on.out.contains("handler modified"));
            assertFalse(on.out, on.out.contains("without signal chaining"));
            env.put("PARTITA_SIGNAL_CHAINING", "off");
            env.put("LD_PRELOAD", null); // this test's own fork runs with chaining (the pom's), not the child
            Run off = partitaWithEnv(env, null, "run", example("mlp.json").toString(), "--iterations", "2",
                    "--engine", "gpu:0");
            assertTrue(off.out, off.out.contains("SIGSEGV handler modified"));
            assertTrue(off.out, off.out.contains("without signal chaining") && off.out.contains("libjsig.so"));
        } finally {
            try (var files = Files.walk(kernels)) {
                for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(f);
                }
            }
        }
    }

    /**
     * The persistent store through the launcher: the first process compiles the graph compiler's
     * attention and stores its blobs, the second creates it from them, a damaged entry is named at the
     * end of the run and replaced; and a startup cache recorded by train-startup is used by later runs.
     */
    @Test
    public void storedBlobsServeTheNextProcessAndTheStartupCacheIsUsed() throws Exception {
        Path dir = Files.createTempDirectory("partita-it-store");
        java.util.Map<String, String> env = java.util.Map.of("PARTITA_PERSISTENT_CACHE_DIR",
                dir.resolve("cache").toString(), "PARTITA_PERSISTENT_CACHE_CAPACITY", "64",
                "PARTITA_PERSISTENT_CACHE_ENGINES", "cpu;gpu", "PARTITA_STARTUP_CACHE_DIR", dir.resolve("startup").toString());
        String graph = example("attention.json").toString();
        try {
            Run first = partitaWithEnv(env, null, "run", graph, "--iterations", "2");
            assertEquals(first.out, 0, first.code);
            assertTrue(first.out, first.out.contains("persistent cache: 0 of 5 partitions created from stored blobs, "
                    + "1 compiled with blobs to store"));
            // only the compiler's partition is looked up: the DNNL-style backend gives no blobs
            assertTrue(first.out, first.out.contains("hits 0, misses 1, stores 1, rejects 0"));
            Run second = partitaWithEnv(env, null, "run", graph, "--iterations", "2", "--check");
            assertEquals(second.out, 0, second.code);
            assertTrue(second.out, second.out.contains("persistent cache: 1 of 5 partitions created from stored blobs, 0 compiled"));
            assertTrue(second.out, second.out.contains("check: all 1 outputs match the reference backend"));
            Path kernelBin;
            try (java.util.stream.Stream<Path> files = Files.walk(dir.resolve("cache"))) {
                kernelBin = files.filter(f -> f.getFileName().toString().equals("kernel.bin")).findFirst().orElseThrow();
            }
            byte[] b = Files.readAllBytes(kernelBin);
            b[b.length / 2] ^= 0x40;
            Files.write(kernelBin, b);
            Run third = partitaWithEnv(env, null, "run", graph, "--iterations", "2", "--check");
            assertEquals(third.out, 0, third.code);
            assertTrue(third.out, third.out.contains("0 of 5 partitions created from stored blobs, 1 compiled"));
            assertTrue(third.out, third.out.contains("rejected entry " + kernelBin.getParent() + ": checksum"));
            assertTrue(third.out, third.out.contains("check: all 1 outputs match the reference backend"));

            Run missing = partitaWithEnv(env, null, "train-startup", "/nonexistent.json");
            assertEquals(missing.out, 2, missing.code);
            assertTrue(missing.out, missing.out.contains("partita: no such graph file: /nonexistent.json"));
            Run train = partitaWithEnv(env, null, "train-startup", example("mlp.json").toString(), "--iterations", "2");
            assertEquals(train.out, 0, train.code);
            assertTrue(train.out, !train.out.contains("Picked up JAVA_TOOL_OPTIONS"));
            assertTrue(train.out, train.out.contains("partita: startup cache " + dir.resolve("startup")));
            java.util.Map<String, String> logged = new java.util.HashMap<>(env);
            logged.put("PARTITA_JAVA_OPTS", "-Xlog:aot=info");
            Run used = partitaWithEnv(logged, null, "backends");
            assertEquals(used.out, 0, used.code);
            assertTrue(used.out, used.out.contains("Opened AOT cache " + dir.resolve("startup")));
            logged.put("PARTITA_STARTUP_CACHE", "off");
            Run off = partitaWithEnv(logged, null, "backends");
            assertTrue(off.out, !off.out.contains("Opened AOT cache"));
            // a cache others can write is code someone else could have put there: not used
            logged.remove("PARTITA_STARTUP_CACHE");
            Path aot;
            try (java.util.stream.Stream<Path> files = Files.list(dir.resolve("startup"))) {
                aot = files.filter(f -> f.getFileName().toString().endsWith(".aot")).findFirst().orElseThrow();
            }
            Files.setPosixFilePermissions(aot, java.nio.file.attribute.PosixFilePermissions.fromString("rw-rw-rw-"));
            Run unsafe = partitaWithEnv(logged, null, "backends");
            assertEquals(unsafe.out, 0, unsafe.code);
            assertTrue(unsafe.out, unsafe.out.contains("partita: warning: ignoring startup cache " + aot
                    + ": not owned by you, or writable by others"));
            assertTrue(unsafe.out, !unsafe.out.contains("Opened AOT cache"));
        } finally {
            try (java.util.stream.Stream<Path> files = Files.walk(dir)) {
                for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(f);
                }
            }
        }
    }

    @Test
    public void badInputsExitWithAClearMessage() throws Exception {
        Run missing = partita(null, "run", "/nonexistent/graph.json");
        assertEquals(missing.out, 2, missing.code);
        assertTrue(missing.out, missing.out.contains("no such graph file: /nonexistent/graph.json"));
        Path bad = Files.createTempFile("bad", ".json");
        Files.writeString(bad, "{\"engine_kind\": \"cpu\", \"graph\": [{\"id\": 0, \"kind\": \"Nope\", \"inputs\": [], \"outputs\": []}]}");
        Run unknown = partita(null, "run", bad.toString());
        assertEquals(unknown.out, 2, unknown.code);
        assertTrue(unknown.out, unknown.out.contains("unknown op kind 'Nope'"));
        Run option = partita(null, "run", example("mlp.json").toString(), "--policy", "greedy");
        assertEquals(option.out, 2, option.code);
        assertTrue(option.out, option.out.contains("'greedy' is not a policy; expected fusion or debug"));
        // Fails within milliseconds of the container start, while the DNNL warm-up still runs: the
        // warm-up must end with its bundle instead of loading classes through a stopped one.
        Path unknownRank = Files.createTempFile("rank", ".json");
        Files.writeString(unknownRank, Files.readString(example("mlp.json"))
                .replaceFirst("\\[\\s*64,\\s*784\\s*\\]", "[-9223372036854775808]")
                .replaceFirst("\\[\\s*784,\\s*1\\s*\\]", "[-9223372036854775808]"));
        Run rank = partita(null, "run", unknownRank.toString());
        assertEquals(rank.out, 2, rank.code);
        assertTrue(rank.out, rank.out.contains("partita: compile input tensor 0 has unknown rank"));
        assertTrue(rank.out, !rank.out.contains("Exception"));
        for (String threads : new String[] {"100000", "0"}) {
            Run t = partita(null, "run", example("mlp.json").toString(), "--threads", threads);
            assertEquals(t.out, 2, t.code);
            assertTrue(t.out, t.out.contains("partita: --threads " + threads + " is out of range; expected 1 to 1024"));
            assertTrue(t.out, !t.out.contains("graph:")); // refused before the graph is loaded
        }
    }

    /** FileInstall does not apply a file it cannot parse: the user sees one line saying so. */
    @Test
    public void aConfigurationFileThatCannotBeParsedIsReportedOnOneLine() throws Exception {
        Path cfg = ContainerSupport.home().resolve("conf").resolve("io.partita.backend.dnnl.cfg");
        Files.writeString(cfg, "threads = \\uZZZZ\n");
        try {
            Run r = partita(null, "backends");
            assertEquals(r.out, 0, r.code);
            assertTrue(r.out, r.out.contains("partita: configuration: Failed to install artifact: " + cfg.toAbsolutePath().normalize()
                    + ": Unable to parse unicode value: ZZZZ"));
            assertTrue(r.out, !r.out.contains("\tat ") && r.out.contains("dnnl "));
        } finally {
            Files.deleteIfExists(cfg);
        }
    }

    /**
     * A file FileInstall cannot parse, written while the container runs (FileInstall then logs to
     * the OSGi Log Service, which nothing printed): its error reaches the console through SLF4J.
     */
    @Test
    public void aConfigurationFileBrokenWhileRunningIsReportedThroughSlf4j() throws Exception {
        Path home = ContainerSupport.home().toAbsolutePath();
        Path cfg = home.resolve("conf").resolve("io.partita.it.live.cfg");
        ProcessBuilder pb = new ProcessBuilder(home.resolve("bin/partita").toString(), "shell").redirectErrorStream(true);
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process p = pb.start();
        StringBuffer out = new StringBuffer();
        Thread reader = new Thread(() -> {
            try (java.io.InputStream in = p.getInputStream()) {
                byte[] buf = new byte[4096];
                for (int n; (n = in.read(buf)) > 0;) {
                    out.append(new String(buf, 0, n, StandardCharsets.UTF_8));
                }
            } catch (IOException e) {
                out.append(e);
            }
        });
        reader.start();
        try {
            // The shell's first output (its banner or prompt) comes once the container is up.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (out.length() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            Thread.sleep(2000);
            Files.writeString(cfg, "answer = \\uZZZZ\n");
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!out.toString().contains("Failed to install artifact") && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
        } finally {
            Files.deleteIfExists(cfg);
            p.getOutputStream().close(); // end of input: the shell stops the container
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
            reader.join(10_000);
        }
        String line = out.toString().lines().filter(l -> l.contains("Failed to install artifact")).findFirst()
                .orElseThrow(() -> new AssertionError("no FileInstall error in: " + out));
        // FileInstall picks its logger once: the OSGi Log Service when it is up by then (its entries go
        // on through SLF4J), else java.util.logging (the launcher's one-line handler). Both reach the console.
        assertTrue(line, (line.contains("ERROR org.apache.felix.fileinstall") || line.startsWith("partita: configuration: "))
                && line.contains(cfg.toString()) && line.contains("Unable to parse unicode value: ZZZZ"));
    }

    /**
     * {@code serve --port P}: the container runs without a shell, its MBeans reachable over JMX on
     * localhost:P; SIGTERM stops it gracefully and removes its storage.
     */
    @Test
    public void serveRunsUntilSigtermWithJmxOnItsPort() throws Exception {
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path home = ContainerSupport.home().toAbsolutePath();
        // Into a file: Process.destroy closes the pipes, and what it prints while stopping matters here.
        Path log = Files.createTempFile("partita-serve", ".log");
        ProcessBuilder pb = new ProcessBuilder(home.resolve("bin/partita").toString(), "serve", "--port", "" + port)
                .redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process p = pb.start();
        p.getOutputStream().close(); // no shell: input is not read
        java.util.function.Supplier<String> out = () -> {
            try {
                return Files.readString(log);
            } catch (IOException e) {
                return e.toString();
            }
        };
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!out.get().contains("partita: serving") && p.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertTrue(out.get(), out.get().contains("JMX at service:jmx:rmi:///jndi/rmi://localhost:" + port));
            Thread.sleep(1000);
            assertTrue("still serving: " + out.get(), p.isAlive());
            javax.management.remote.JMXServiceURL url = new javax.management.remote.JMXServiceURL(
                    "service:jmx:rmi:///jndi/rmi://localhost:" + port + "/jmxrmi");
            try (javax.management.remote.JMXConnector c = javax.management.remote.JMXConnectorFactory.connect(url)) {
                javax.management.MBeanServerConnection mbs = c.getMBeanServerConnection();
                assertEquals(100, mbs.getAttribute(new javax.management.ObjectName("io.partita:type=Backend,id=\"dnnl\""),
                        "Rank"));
                assertEquals(1024, mbs.getAttribute(
                        new javax.management.ObjectName("io.partita:type=KernelCache,name=\"compiled_partitions\""),
                        "Capacity"));
            }
        } finally {
            p.destroy(); // SIGTERM
            assertTrue("stopped within 60 s", p.waitFor(60, TimeUnit.SECONDS));
        }
        assertTrue(out.get(), out.get().contains("partita: stopped (caches flushed, container storage removed)"));
        try (Stream<Path> left = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            List<Path> mine = left.filter(f -> f.getFileName().toString().startsWith("partita-felix-" + p.pid() + "-"))
                    .toList();
            assertTrue("storage removed: " + mine, mine.isEmpty());
        }
        Files.delete(log);
    }

    /** The ACL-style backend is deployed below dnnl; its pool cap comes from its PID and a bad value is refused. */
    @Test
    public void theAclBackendIsListedBelowDnnlWithItsConfiguredPoolCap() throws Exception {
        Path cfg = ContainerSupport.home().resolve("conf").resolve("io.partita.backend.acl.cfg");
        Files.writeString(cfg, "pool.cap.mb = 64\n");
        try {
            Run r = partita(null, "backends");
            assertEquals(r.out, 0, r.code);
            int dnnl = r.out.indexOf("\ndnnl ");
            int acl = r.out.indexOf("\nacl ");
            assertTrue(r.out, dnnl >= 0 && acl > dnnl && r.out.contains("cap=64MB"));
            Files.writeString(cfg, "pool.cap.mb = lots\n");
            Run bad = partita(null, "backends");
            assertTrue(bad.out, bad.out.contains("refused io.partita.backend.acl pool.cap.mb = 'lots': expected an integer"
                    + " from 0 to 1048576; the previous setting stays")
                    && bad.out.contains("cap=1024MB"));
        } finally {
            Files.deleteIfExists(cfg);
        }
    }

    /**
     * The graph compiler ranks first and takes the attention block; ranked below dnnl through its
     * PID, it is listed there and the same graph falls to per-op partitions.
     */
    @Test
    public void theGraphCompilerTakesAttentionUnlessRankedBelowDnnl() throws Exception {
        Run first = partita(null, "partitions", example("attention.json").toString());
        assertEquals(first.out, 0, first.code);
        assertTrue(first.out, first.out.contains("compiler   attention"));
        Path cfg = ContainerSupport.home().resolve("conf").resolve("io.partita.backend.compiler.cfg");
        Files.writeString(cfg, "service.ranking = 40\n");
        try {
            Run r = partita(null, "backends");
            assertEquals(r.out, 0, r.code);
            int dnnl = r.out.indexOf("\ndnnl ");
            int compiler = r.out.indexOf("\ncompiler ");
            assertTrue(r.out, dnnl >= 0 && compiler > dnnl);
            Run parts = partita(null, "partitions", example("attention.json").toString());
            assertTrue(parts.out, !parts.out.contains("attention ") && parts.out.contains("dnnl       softmax"));
        } finally {
            Files.deleteIfExists(cfg);
        }
    }

    @Test
    public void shellCommandsWork() throws Exception {
        Run r = partita("partita:backends\npartita:partitions " + example("attention.json") + "\n"
                + "partita:cache capacity cpu 1024\npartita:cache policy cpu lru\npartita:cache capacity cpu lots\n", "shell");
        assertTrue(r.out, r.out.contains("reference"));
        assertTrue(r.out, r.out.contains("partitions (policy fusion):"));
        assertTrue(r.out, r.out.contains("constant tensor cache cpu    lru      capacity 1024.0 MB"));
        assertTrue(r.out, r.out.contains("'lots' is not a number of megabytes"));
        assertTrue(r.out, r.out.contains("persistent cache off (no directory) (engines gpu), 0 entries"));
    }

    /** The harness, convert and conformance commands in the shell, and Gogo's help listing every partita command. */
    @Test
    public void everyCommandRunsInTheShellAndHelpListsThem() throws Exception {
        Path out = Files.createTempFile("partita-shell-convert", ".json");
        try {
            Path test = onnxTest("test_relu");
            Path cases = corpus().resolve("benchdnn-graph").resolve("harness-cases.tsv").toAbsolutePath();
            Run r = partita("help\n"
                    + "partita:conformance " + test + "\n"
                    + "partita:convert " + test.resolve("model.onnx") + " " + out + "\n"
                    + "partita:harness " + cases + " --filter 'harness_bf16_all.*op/f32/softmax.json' --no-check\n"
                    + "partita:harness /nonexistent.tsv\n", "shell");
            for (String c : List.of("backends", "partitions", "run", "cache", "harness", "convert", "conformance")) {
                assertTrue(c + ": " + r.out, r.out.contains("partita:" + c));
            }
            assertTrue(r.out, r.out.matches("(?s).*\\nRelu +1 +0 +0 +1\\n.*"));
            assertTrue(r.out, r.out.contains("wrote " + out + ": 1 ops"));
            assertTrue("convert wrote the graph JSON", Files.readString(out).contains("\"kind\" : \"ReLU\""));
            assertTrue(r.out, r.out.matches("(?s).*case lines: [1-9][0-9]*, passed [1-9][0-9]*, failed 0.*"));
            assertTrue(r.out, r.out.contains("partita: no such case file: /nonexistent.tsv"));
        } finally {
            Files.deleteIfExists(out);
        }
    }

    static Path corpus() {
        String p = System.getProperty("partita.corpus");
        return p != null && !p.isEmpty() && !p.startsWith("${") ? Path.of(p) : Path.of("..", "testdata", "corpus");
    }

    static Path onnxTest(String name) {
        return corpus().resolve("onnx-node").resolve(name).toAbsolutePath();
    }

    /** ONNX import inside the Felix container: protobuf-java is deployed as a bundle and resolves. */
    @Test
    public void onnxModelsRunConvertAndConformInTheContainer() throws Exception {
        Run r = partita(null, "run", onnxTest("test_basic_conv_with_padding").resolve("model.onnx").toString(),
                "--iterations", "2", "--check");
        assertEquals(r.out, 0, r.code);
        assertTrue(r.out, r.out.contains("ONNX opset") && r.out.contains("check: all 1 outputs match"));
        Path json = Files.createTempFile("erf", ".json");
        Run c = partita(null, "convert", onnxTest("test_erf").resolve("model.onnx").toString(), json.toString());
        assertEquals(c.out, 0, c.code);
        assertTrue(c.out, c.out.contains("Partita extension ops [PartitaErf]"));
        Run k = partita(null, "conformance", onnxTest("test_gemm_all_attributes").toString(), "--verbose");
        assertEquals(k.out, 0, k.code);
        assertTrue(k.out, k.out.contains("PASS test_gemm_all_attributes [dnnl]"));
    }

    /** benchdnn case lines inside the container: the oracle comes from the runtime service, not a plain class path lookup. */
    @Test
    public void harnessLinesRunInTheContainer() throws Exception {
        Run r = partita(null, "harness", corpus().resolve("benchdnn-graph").resolve("harness-cases.tsv").toAbsolutePath()
                .toString(), "--filter", "binary-matmul-binary-f32");
        assertEquals(r.out, 0, r.code);
        assertTrue(r.out, r.out.contains("case lines: 2, passed 2, failed 0"));
    }

    /**
     * A kernel method that C1 cannot compile at tier 3 ("out of virtual registers") never reaches
     * C2 either, and then runs its vector code on boxed objects at a fraction of the speed, with no
     * error anywhere. Running the examples long enough for the JIT to settle must not leave any
     * Partita method in that state.
     */
    @Test
    public void noKernelIsLeftToTheInterpreterTiers() throws Exception {
        List<Path> graphs = new ArrayList<>();
        for (String example : List.of("mlp.json", "attention.json", "resnet_block.json", "gemv.json",
                "mqa_transposed.json")) {
            graphs.add(example(example));
        }
        // softmax across lines, reductions over columns, layer norm: kernels the examples do not reach
        for (String op : List.of("softmax.json", "reducemean.json", "lnorm_ks.json")) {
            graphs.add(corpus().resolve("benchdnn-graph/op/f32").resolve(op).toAbsolutePath());
        }
        // conv + folded BatchNorm + residual sum + ReLU store loops (heavier: fewer iterations reach C2)
        graphs.add(example("resnet_bottleneck_bn.json"));
        for (Path graph : graphs) {
            String example = graph.getFileName().toString();
            String iterations = example.startsWith("resnet_bottleneck") ? "300" : "2000";
            Run r = partitaWithJavaOpts("-XX:+PrintCompilation", null, "run", graph.toString(),
                    "--iterations", iterations, "--threads", "2");
            assertEquals(r.out, 0, r.code);
            List<String> skipped = r.out.lines()
                    .filter(l -> l.contains("io.partita") && l.contains("COMPILE SKIPPED")
                            && !l.contains("concurrent class loading"))
                    .toList();
            assertTrue(example + ": methods the JIT gave up on:\n" + String.join("\n", skipped), skipped.isEmpty());
        }
    }
}
