package io.partita.cache.internal;

import static io.partita.cache.internal.StoreFixtures.actualBytes;
import static io.partita.cache.internal.StoreFixtures.blobs;
import static io.partita.cache.internal.StoreFixtures.entries;
import static io.partita.cache.internal.StoreFixtures.key;
import static io.partita.cache.internal.StoreFixtures.same;
import static io.partita.cache.internal.StoreFixtures.sizeTxt;
import static io.partita.cache.internal.StoreFixtures.temporaries;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.partita.cache.DeviceKind;

/**
 * Many threads on one directory through two store instances (two cache managers in one JVM share the
 * directory's lock). Checked: a load is always whole and the stored key's own blobs (no torn or
 * foreign read); an entry stored with room to spare is found right after (no lost entry); nothing is
 * ever rejected; size.txt matches the directory at the end; nothing deadlocks. The churn phase runs
 * {@value #DEFAULT_SECONDS} s, or {@code -Dpartita.stress.seconds=N}.
 */
class PersistentStoreStressTest {
    static final int DEFAULT_SECONDS = 3;
    private static final long RUN_MS = Long.getLong("partita.stress.seconds", DEFAULT_SECONDS) * 1000;
    private static final int THREADS = 16;
    private static final int KEYS = 300;
    private static final int BLOB = 8000;
    private static final long[] CAPACITIES = {0, 1, 2, 4, 64};

    @TempDir
    Path tmp;

    @Test
    void manyThreadsMixedKeysAndCapacityChurn() {
        assertTimeoutPreemptively(Duration.ofSeconds(120 + RUN_MS / 1000), this::run);
    }

    private void run() throws Exception {
        Path dir = tmp.resolve("cache");
        PersistentStore[] stores = {StoreFixtures.store(dir, 64), StoreFixtures.store(dir, 64)};
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        LongAdder hits = new LongAdder();

        // phase 1: room for everything; each thread stores its own keys and must find each at once
        runThreads(t -> {
            SplittableRandom r = new SplittableRandom(t);
            for (int k = t * (KEYS / THREADS); k < (t + 1) * (KEYS / THREADS); k++) {
                int key = k;
                PersistentStore s = stores[r.nextInt(2)];
                if (!s.store(DeviceKind.GPU, key(k), blobs(k, BLOB))) {
                    add(problems, "store of key " + k + " refused with room to spare");
                }
                Optional<List<byte[]>> got = stores[r.nextInt(2)].load(DeviceKind.GPU, key(k));
                if (got.isEmpty()) {
                    add(problems, "key " + k + " lost right after its store");
                }
                got.ifPresent(g -> check(g, key, problems));
                check(r.nextInt(KEYS), stores[r.nextInt(2)], problems, hits);
            }
        });
        assertTrue(problems.isEmpty(), () -> "phase 1: " + problems);

        // phase 2: mixed keys while the capacity churns from 0 (off) to tight to ample
        AtomicBoolean stop = new AtomicBoolean();
        Thread churn = Thread.ofPlatform().start(() -> {
            SplittableRandom r = new SplittableRandom(99);
            while (!stop.get()) {
                long mb = CAPACITIES[r.nextInt(CAPACITIES.length)];
                stores[r.nextInt(2)].setCapacity(mb);
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        long end = System.currentTimeMillis() + RUN_MS;
        runThreads(t -> {
            SplittableRandom r = new SplittableRandom(1000 + t);
            while (System.currentTimeMillis() < end) {
                int k = r.nextInt(KEYS);
                PersistentStore s = stores[r.nextInt(2)];
                if (r.nextInt(3) == 0) {
                    s.store(DeviceKind.GPU, key(k), blobs(k, BLOB));
                } else {
                    check(k, s, problems, hits);
                }
            }
        });
        stop.set(true);
        churn.join();
        assertTrue(problems.isEmpty(), () -> "phase 2: " + problems);
        assertTrue(hits.sum() > 0, "the loads must have found entries");

        // final: room again; every key can be stored and found, nothing was ever rejected
        for (PersistentStore s : stores) {
            s.setCapacity(64);
        }
        for (int k = 0; k < KEYS; k++) {
            assertTrue(stores[k % 2].store(DeviceKind.GPU, key(k), blobs(k, BLOB)));
        }
        for (int k = 0; k < KEYS; k++) {
            assertTrue(same(blobs(k, BLOB), stores[(k + 1) % 2].load(DeviceKind.GPU, key(k)).orElseThrow()), "key " + k);
        }
        assertEquals(0, stores[0].stats().rejected() + stores[1].stats().rejected(),
                () -> "rejects " + stores[0].stats().rejects() + " " + stores[1].stats().rejects());
        assertEquals(KEYS, entries(dir).size());
        assertEquals(actualBytes(dir) + " " + KEYS, sizeTxt(dir));
        assertEquals(List.of(), temporaries(dir));
    }

    private static void check(int k, PersistentStore s, ConcurrentLinkedQueue<String> problems, LongAdder hits) {
        Optional<List<byte[]>> got = s.load(DeviceKind.GPU, key(k));
        if (got.isPresent()) {
            hits.increment();
            check(got.get(), k, problems);
        }
    }

    private static void check(List<byte[]> got, int k, ConcurrentLinkedQueue<String> problems) {
        if (!same(blobs(k, BLOB), got)) {
            add(problems, "key " + k + " loaded other or torn blobs");
        }
    }

    /** Keeps the first few problems (a broken store can have thousands). */
    private static void add(ConcurrentLinkedQueue<String> problems, String problem) {
        if (problems.size() < 10) {
            problems.add(problem);
        }
    }

    @FunctionalInterface
    interface Body {
        void run(int thread) throws Exception;
    }

    private static void runThreads(Body body) throws Exception {
        List<Thread> threads = new ArrayList<>();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        for (int t = 0; t < THREADS; t++) {
            int id = t;
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    body.run(id);
                } catch (Throwable e) {
                    failures.add(e);
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        if (!failures.isEmpty()) {
            throw new AssertionError("a thread failed", failures.peek());
        }
    }
}
