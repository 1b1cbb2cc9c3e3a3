package io.partita.cache.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;

import io.partita.cache.DeviceKind;

/** Keys and blobs derived from a number (so any reader can check what it got), and directory inspection. */
final class StoreFixtures {
    private StoreFixtures() {
    }

    static byte[] key(int n) {
        return ("partition " + n + " shapes [1,3,224,224] backend gpu 1.0").getBytes(StandardCharsets.UTF_8);
    }

    /** One to three blobs whose sizes and bytes depend on n only. */
    static List<byte[]> blobs(int n, int maxBytes) {
        SplittableRandom r = new SplittableRandom(n * 7919L + 17);
        int count = 1 + r.nextInt(3);
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            byte[] b = new byte[1 + r.nextInt(maxBytes)];
            r.nextBytes(b);
            out.add(b);
        }
        return out;
    }

    static boolean same(List<byte[]> a, List<byte[]> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (!Arrays.equals(a.get(i), b.get(i))) {
                return false;
            }
        }
        return true;
    }

    static PersistentStore store(Path dir, long megabytes) {
        PersistentStore s = new PersistentStore();
        s.setDirectory(dir);
        s.setCapacity(megabytes);
        s.setEngines(java.util.Set.of(DeviceKind.CPU, DeviceKind.GPU));
        return s;
    }

    /** The entry directory holding this key (bucket/n), or null. */
    static Path entryOf(Path dir, byte[] key) throws IOException {
        Path bucket = dir.resolve(EntryFormat.bucket(key));
        if (!Files.isDirectory(bucket)) {
            return null;
        }
        try (Stream<Path> s = Files.list(bucket)) {
            for (Path e : s.toList()) {
                if (Arrays.equals(key, (byte[]) EntryFormat.decodeKey(Files.readAllBytes(e.resolve("key.bin"))))) {
                    return e;
                }
            }
        }
        return null;
    }

    /** All entry directories. */
    static List<Path> entries(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            List<Path> out = new ArrayList<>();
            for (Path b : s.filter(p -> EntryFormat.isBucketName(p.getFileName().toString())).toList()) {
                try (Stream<Path> e = Files.list(b)) {
                    out.addAll(e.toList());
                }
            }
            return out;
        }
    }

    /** Sum of the sizes of every key.bin and kernel.bin: what size.txt must say. */
    static long actualBytes(Path dir) throws IOException {
        long total = 0;
        for (Path e : entries(dir)) {
            total += Files.size(e.resolve("key.bin")) + Files.size(e.resolve("kernel.bin"));
        }
        return total;
    }

    static String sizeTxt(Path dir) throws IOException {
        return Files.readString(dir.resolve("size.txt")).trim();
    }

    static List<Path> temporaries(Path dir) throws IOException {
        Path tmp = dir.resolve(".tmp");
        if (!Files.isDirectory(tmp, LinkOption.NOFOLLOW_LINKS)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(tmp)) {
            return s.toList();
        }
    }
}
