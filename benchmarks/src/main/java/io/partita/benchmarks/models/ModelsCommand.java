package io.partita.benchmarks.models;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * {@code models OUTDIR}: writes each network model ({@link Networks#names()}, then the model zoo's
 * classics of {@link ModelZoo}) to
 * {@code OUTDIR/<name>.onnx}, so it can be run with {@code partita run OUTDIR/resnet50.onnx
 * --check} or inspected with {@code partita partitions}. The files are the very models the anchors
 * benchmark runs (same seeds), written atomically (a temporary file renamed into place).
 */
public final class ModelsCommand {
    private ModelsCommand() {
    }

    /** Runs the command; {@code args} are those after {@code models}. Returns the exit status. */
    public static int run(String[] args) throws IOException {
        if (args.length != 1 || args[0].startsWith("-")) {
            System.err.println("usage: models OUTDIR   (writes " + String.join(", ",
                    all().stream().map(n -> n + ".onnx").toList()) + ")");
            return 2;
        }
        Path dir = Path.of(args[0]);
        Files.createDirectories(dir);
        for (String name : all()) {
            NetworkModel m = Networks.get(name);
            Path file = dir.resolve(name + ".onnx");
            Path tmp = dir.resolve("." + name + ".onnx." + ProcessHandle.current().pid() + ".tmp");
            Files.write(tmp, m.bytes());
            Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            System.out.printf(Locale.ROOT, "%s: %d nodes, %,d parameters, %.2f GFLOP per inference, %.1f MB; %s%n",
                    file, m.nodes(), m.parameters(), m.flops() / 1e9, m.bytes().length / 1e6, m.description());
        }
        return 0;
    }

    private static java.util.List<String> all() {
        java.util.List<String> all = new java.util.ArrayList<>(Networks.names());
        all.addAll(ModelZoo.names());
        all.addAll(ModelZoo.largeNames());
        return all;
    }
}
