package io.partita.cache.internal;

import static io.partita.cache.internal.StoreFixtures.actualBytes;
import static io.partita.cache.internal.StoreFixtures.entries;
import static io.partita.cache.internal.StoreFixtures.key;
import static io.partita.cache.internal.StoreFixtures.same;
import static io.partita.cache.internal.StoreFixtures.sizeTxt;
import static io.partita.cache.internal.StoreFixtures.temporaries;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.partita.cache.DeviceKind;
import io.partita.cache.PersistentCacheStats;

/** Other JVMs on the same directory: concurrent stores and loads, and a writer killed mid-write. */
class PersistentStoreProcessTest {
    @TempDir
    Path tmp;

    /** A JVM running {@link PersistentStoreWorker}; its stdout lines are collected as they come. */
    private final class Worker {
        final Process process;
        final List<String> lines = new CopyOnWriteArrayList<>();
        final Thread reader;

        Worker(String... args) throws IOException {
            List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx512m", "-cp", System.getProperty("java.class.path"), PersistentStoreWorker.class.getName()));
            cmd.addAll(List.of(args));
            process = new ProcessBuilder(cmd).redirectError(tmp.resolve("worker-" + System.nanoTime() + ".err").toFile())
                    .start();
            reader = Thread.ofVirtual().start(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    for (String l = r.readLine(); l != null; l = r.readLine()) {
                        lines.add(l);
                    }
                } catch (IOException e) {
                    lines.add("READ FAILED " + e);
                }
            });
        }

        int await() throws InterruptedException {
            assertTrue(process.waitFor(180, TimeUnit.SECONDS), "worker timed out: " + lines);
            reader.join(5000);
            return process.exitValue();
        }
    }

    @Test
    void twoJvmsStoreAndLoadOneDirectoryAtOnce() throws Exception {
        Path dir = tmp.resolve("cache");
        // 1 MB for ~200 keys of ~20 KB: both processes evict constantly while the other reads
        Worker a = new Worker("mixed", dir.toString(), "1", "200", "1500", "1");
        Worker b = new Worker("mixed", dir.toString(), "1", "200", "1500", "2");
        int ea = a.await();
        int eb = b.await();
        assertEquals(0, ea, "worker a: " + a.lines);
        assertEquals(0, eb, "worker b: " + b.lines);
        for (Worker w : List.of(a, b)) {
            Matcher m = Pattern.compile("hits=(\\d+) misses=(\\d+) stores=(\\d+) rejects=0").matcher(String.join("\n",
                    w.lines));
            assertTrue(m.find(), "no stats line: " + w.lines);
            assertTrue(Long.parseLong(m.group(1)) > 0 && Long.parseLong(m.group(3)) > 0,
                    "each process both hits and stores: " + w.lines);
        }
        // what is left is whole, counted right, and within the capacity
        PersistentStore s = StoreFixtures.store(dir, 1);
        int present = 0;
        for (int k = 0; k < 200; k++) {
            Optional<List<byte[]>> got = s.load(DeviceKind.GPU, key(k));
            if (got.isPresent()) {
                present++;
                assertTrue(same(StoreFixtures.blobs(k, PersistentStoreWorker.MIXED_BLOB), got.get()), "key " + k);
            }
        }
        assertEquals(0, s.stats().rejected());
        assertEquals(entries(dir).size(), present, "every entry on disk is one of the keys, once");
        assertTrue(actualBytes(dir) <= 1 << 20);
        assertEquals(actualBytes(dir) + " " + present, sizeTxt(dir));
        assertEquals(List.of(), temporaries(dir));
    }

    @Test
    void aWriterKilledMidWriteLeavesNoCorruptEntry() throws Exception {
        Path dir = tmp.resolve("cache");
        int bytes = 24 << 20;
        boolean killedMidWrite = false;
        for (int attempt = 0; attempt < 6 && !killedMidWrite; attempt++) {
            Worker w = new Worker("big", dir.toString(), "4096", "40", Integer.toString(bytes));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < deadline && w.process.isAlive() && !writing(dir)) {
                Thread.onSpinWait();
            }
            w.process.destroyForcibly(); // SIGKILL: no shutdown hook, no finally
            w.await();
            killedMidWrite = !temporaries(dir).isEmpty();
            List<Integer> stored = w.lines.stream().filter(l -> l.startsWith("stored ")).map(l -> Integer.parseInt(
                    l.substring(7))).toList();
            // a fresh process loads cleanly: every announced entry whole, the interrupted one whole or absent
            PersistentStore s = StoreFixtures.store(dir, 4096);
            for (int k = 0; k < 40; k++) {
                Optional<List<byte[]>> got = s.load(DeviceKind.GPU, key(k));
                if (stored.contains(k)) {
                    assertTrue(got.isPresent(), "stored key " + k + " lost");
                }
                if (got.isPresent()) {
                    assertEquals(1, got.get().size());
                    assertArrayEquals(PersistentStoreWorker.bigBlob(k, bytes), got.get().get(0), "key " + k);
                }
            }
            PersistentCacheStats st = s.stats();
            assertEquals(0, st.rejected(), "no entry is damaged: " + st.rejects());
            // the next writer clears the dead writer's leftovers and the totals are right
            assertTrue(s.store(DeviceKind.GPU, key(1000 + attempt), List.of(new byte[10])));
            assertEquals(List.of(), temporaries(dir));
            assertEquals(actualBytes(dir) + " " + entries(dir).size(), sizeTxt(dir));
            for (Path e : entries(dir)) {
                Files.delete(e.resolve("kernel.bin")); // keep the disk small between attempts
                Files.delete(e.resolve("key.bin"));
                Files.delete(e);
            }
        }
        assertTrue(killedMidWrite, "no attempt caught the writer mid-write");
    }

    /** Whether a writer is filling a temporary entry right now. */
    private static boolean writing(Path dir) {
        try {
            for (Path t : temporaries(dir)) {
                Path k = t.resolve("kernel.bin");
                if (Files.exists(k) && Files.size(k) > 0) {
                    return true;
                }
            }
        } catch (IOException e) {
            // raced with the rename: look again
        }
        return false;
    }
}
