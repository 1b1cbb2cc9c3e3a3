package io.partita.cli.run;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

import io.partita.graph.CompiledGraph;
import io.partita.graph.LogicalTensor;
import io.partita.graph.Op;
import io.partita.graph.Partition;
import io.partita.graph.PartitionPolicy;

/** Text reports of partitions and timings. */
final class Report {
    private Report() {
    }

    /** One line per partition; compile times when the graph was compiled. */
    static void partitions(PrintStream out, PartitionPolicy policy, List<Partition> parts, CompiledGraph compiled) {
        out.printf("partitions (policy %s): %d%n", policy.name().toLowerCase(Locale.ROOT), parts.size());
        out.printf("  %4s  %-10s %-22s %10s  %s%n", "id", "backend", "pattern", compiled != null ? "compile" : "", "ops");
        for (int i = 0; i < parts.size(); i++) {
            Partition p = parts.get(i);
            String time = compiled != null ? ms(compiled.steps().get(i).compiled().compileTime().toNanos()) : "";
            out.printf("  %4d  %-10s %-22s %10s  %s%n", p.id(), p.backendId(), p.pattern(), time, ops(p.ops()));
        }
    }

    /**
     * With the persistent cache on for the engine kind: how many partitions were created from stored
     * cache blobs, and how many were compiled (and stored, when their backend gives blobs).
     */
    static void persistentCompiles(PrintStream out, io.partita.cache.PersistentCache store,
            io.partita.graph.EngineKind kind, CompiledGraph compiled) {
        if (!store.enabled(io.partita.cache.DeviceKind.fromSpelling(kind.spelling()))) {
            return;
        }
        long loaded = compiled.steps().stream().filter(s -> s.compiled().fromBlobs()).count();
        long withBlobs = compiled.steps().stream().filter(s -> !s.compiled().fromBlobs())
                .filter(s -> !s.compiled().cacheBlobs().isEmpty()).count();
        out.printf("persistent cache: %d of %d partitions created from stored blobs, %d compiled with blobs to store%n",
                loaded, compiled.steps().size(), withBlobs);
    }

    static String ops(List<Op> ops) {
        String s = ops.stream().map(o -> o.id() + ":" + o.kind().spelling()).collect(Collectors.joining(" "));
        return s.length() > 100 ? s.substring(0, 97) + "..." : s;
    }

    static String ms(long nanos) {
        double ms = nanos / 1e6;
        return ms >= 100 ? String.format(Locale.ROOT, "%.0f ms", ms)
                : ms >= 1 ? String.format(Locale.ROOT, "%.2f ms", ms) : String.format(Locale.ROOT, "%.1f us", nanos / 1e3);
    }

    static String dims(LogicalTensor t) {
        return t.dataType() + LogicalTensor.dimsToString(t.dims());
    }

    /** Median and nearest-rank percentile of sorted samples. */
    static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    static long median(long[] sorted) {
        int n = sorted.length;
        return n == 0 ? 0 : n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    static long[] sortedCopy(long[] samples) {
        long[] s = samples.clone();
        Arrays.sort(s);
        return s;
    }
}
