package io.partita.cache.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.partita.cache.DeviceKind;
import io.partita.cache.InvalidCacheSettingException;
import io.partita.cache.PersistentCache;
import io.partita.cache.PersistentCacheStats;
import io.partita.cache.PersistentCacheStats.Reject;

/**
 * The persistent kernel cache: {@code DIR/<bucket>/<n>/key.bin + kernel.bin} and {@code DIR/size.txt}
 * ({@code <bytes> <entries>}), bucket = the key's 64-bit checksum in hex, n = 0, 1, ... for
 * keys sharing a bucket. An entry is written in {@code DIR/.tmp} and renamed into place whole, so
 * readers see all of it or nothing, and a writer killed half-way leaves only a temporary directory,
 * removed by the next writer (writers hold the exclusive lock, so no temporary is live then).
 * Readers share the lock ({@link DirLock}); a damaged entry found by a reader is removed under the
 * exclusive lock after checking it again. Eviction is first in, first out by the creation time of
 * kernel.bin (last-access times are unreliable across file systems). size.txt is rewritten after
 * every change, and recounted from the directory on a process's first write, whenever it is
 * missing or malformed, and whenever eviction walks the directory anyway.
 */
final class PersistentStore implements PersistentCache {
    private static final Logger LOG = LoggerFactory.getLogger(PersistentStore.class);
    static final String SIZE_FILE = "size.txt";
    static final String TMP_DIR = ".tmp";
    static final String KEY_FILE = "key.bin";
    static final String KERNEL_FILE = "kernel.bin";
    static final long MAX_MEGABYTES = Long.MAX_VALUE >> 20;
    static final String ENGINES_FORM = "engine kinds separated by ';' (cpu, gpu), e.g. cpu;gpu, or none";

    /** Immutable settings, replaced whole. */
    private record Settings(Path directory, long capacityMegabytes, Set<DeviceKind> engines) {
        boolean enabled(DeviceKind kind) {
            return directory != null && capacityMegabytes > 0 && engines.contains(kind);
        }
    }

    /** Totals of a directory. */
    private record Size(long bytes, long entries) {
    }

    /** What an entry turned out to be. */
    private sealed interface Examined permits Match, Other, Bad {
    }

    private record Match(List<byte[]> blobs) implements Examined {
    }

    private record Other() implements Examined {
    }

    private record Bad(Reject reason, String detail) implements Examined {
    }

    private volatile Settings settings = new Settings(null, 0, Set.of(DeviceKind.GPU));
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder stores = new LongAdder();
    private final Map<Reject, LongAdder> rejects = new EnumMap<>(Reject.class);
    /** The latest rejected entries, for reports that name them (end of {@code partita run}). */
    private final java.util.Deque<PersistentCacheStats.Rejection> rejections =
            new java.util.concurrent.ConcurrentLinkedDeque<>();
    private final Set<Path> recounted = ConcurrentHashMap.newKeySet();
    private final Set<String> logged = ConcurrentHashMap.newKeySet();
    private final AtomicLong tmpCounter = new AtomicLong();
    private volatile String problem;

    PersistentStore() {
        for (Reject r : Reject.values()) {
            rejects.put(r, new LongAdder());
        }
    }

    // ---- settings (the manager serializes them and records refusals) ----

    /** Parses and checks a directory setting; {@code source} names it in the message. */
    static Path parseDirectory(String source, String value) {
        if (value == null || value.isBlank()) {
            throw bad(source, value, "the value is empty", "a directory path");
        }
        Path p;
        try {
            p = Path.of(value.trim());
        } catch (InvalidPathException e) {
            throw bad(source, value, "not a path: " + e.getReason(), "a directory path");
        }
        checkDirectory(source, value, p);
        return p.toAbsolutePath().normalize();
    }

    static void checkDirectory(String source, Object value, Path p) {
        if (Files.exists(p) && !Files.isDirectory(p)) {
            throw bad(source, value, p + " exists and is not a directory", "a directory (created if missing)");
        }
        try {
            String why = Files.exists(p) ? FileSecurity.insecurity(p, true) : null;
            if (why != null) {
                throw bad(source, value, why, "a directory only its owner can write (kernels loaded from it run)");
            }
        } catch (IOException e) {
            throw bad(source, value, "cannot read its attributes: " + e, "a readable directory");
        }
    }

    static long parseCapacity(String source, String value) {
        String t = value == null ? "" : value.trim();
        if (!t.matches("\\d{1,19}")) {
            throw bad(source, value, "not a number of megabytes", "a non-negative integer (0 disables the store)");
        }
        try {
            return checkCapacity(source, value, Long.parseLong(t));
        } catch (NumberFormatException e) {
            throw bad(source, value, "too large", "at most " + MAX_MEGABYTES + " megabytes");
        }
    }

    static long checkCapacity(String source, Object value, long megabytes) {
        if (megabytes < 0 || megabytes > MAX_MEGABYTES) {
            throw bad(source, value, megabytes < 0 ? "negative" : "too large",
                    "0 to " + MAX_MEGABYTES + " megabytes (0 disables the store)");
        }
        return megabytes;
    }

    static Set<DeviceKind> parseEngines(String source, String value) {
        String t = value == null ? "" : value.trim();
        if (t.isEmpty()) {
            throw bad(source, value, "the value is empty", ENGINES_FORM);
        }
        if (t.equals("none")) {
            return Set.of();
        }
        EnumSet<DeviceKind> kinds = EnumSet.noneOf(DeviceKind.class);
        String[] parts = t.split(";", -1);
        for (int i = 0; i < parts.length; i++) {
            String k = parts[i].trim();
            if (k.isEmpty()) {
                throw bad(source, value, "entry " + (i + 1) + " is empty (stray ';')", ENGINES_FORM);
            }
            DeviceKind kind;
            try {
                kind = DeviceKind.fromSpelling(k);
            } catch (IllegalArgumentException e) {
                throw bad(source, value, "'" + k + "' is not an engine kind", ENGINES_FORM);
            }
            if (!kinds.add(kind)) {
                throw bad(source, value, "'" + k + "' is listed twice", ENGINES_FORM);
            }
        }
        return kinds;
    }

    private static InvalidCacheSettingException bad(String source, Object value, String problem, String expected) {
        return new InvalidCacheSettingException(source + "='" + value + "': " + problem + "; expected " + expected);
    }

    void setDirectory(Path directory) {
        settings = new Settings(directory.toAbsolutePath().normalize(), settings.capacityMegabytes(),
                settings.engines());
        problem = null;
    }

    void setCapacity(long megabytes) {
        settings = new Settings(settings.directory(), megabytes, settings.engines());
    }

    void setEngines(Set<DeviceKind> kinds) {
        settings = new Settings(settings.directory(), settings.capacityMegabytes(), Set.copyOf(kinds));
    }

    void setEnabled(DeviceKind kind, boolean enabled) {
        EnumSet<DeviceKind> kinds = EnumSet.noneOf(DeviceKind.class);
        kinds.addAll(settings.engines());
        if (enabled) {
            kinds.add(kind);
        } else {
            kinds.remove(kind);
        }
        setEngines(kinds);
    }

    @Override
    public boolean enabled(DeviceKind kind) {
        return settings.enabled(kind);
    }

    @Override
    public Optional<Path> directory() {
        return Optional.ofNullable(settings.directory());
    }

    @Override
    public long capacityMegabytes() {
        return settings.capacityMegabytes();
    }

    // ---- load and store ----

    @Override
    public Optional<List<byte[]>> load(DeviceKind kind, byte[] key) {
        if (kind == null || key == null) {
            throw new IllegalArgumentException("persistent cache load needs an engine kind and a key, got kind "
                    + kind + " and " + (key == null ? "no key" : "a key"));
        }
        Settings s = settings;
        if (!s.enabled(kind)) {
            return Optional.empty();
        }
        Optional<List<byte[]>> found = Optional.empty();
        try {
            Path dir = trusted(s.directory());
            if (dir != null) {
                found = find(dir, key);
            }
        } catch (IOException | RuntimeException e) {
            warnOnce("load from " + s.directory() + " failed", e);
        }
        (found.isPresent() ? hits : misses).increment();
        return found;
    }

    private Optional<List<byte[]>> find(Path dir, byte[] key) throws IOException {
        DirLock lock = DirLock.of(dir, FileSecurity.ownerOnly(dir, false));
        String bucketName = EntryFormat.bucket(key);
        Path bucket = dir.resolve(bucketName);
        List<Path> damaged = new ArrayList<>();
        Optional<List<byte[]>> found = lock.shared(() -> {
            for (Path entry : entries(bucket)) {
                Examined e = examine(entry, bucketName, key);
                if (e instanceof Match m) {
                    return Optional.of(m.blobs());
                }
                if (e instanceof Bad) {
                    damaged.add(entry);
                }
            }
            return Optional.empty();
        });
        if (!damaged.isEmpty()) {
            lock.exclusive(() -> {
                for (Path entry : damaged) {
                    removeIfDamaged(entry, bucketName);
                }
                return null;
            });
        }
        return found;
    }

    @Override
    public boolean store(DeviceKind kind, byte[] key, List<byte[]> blobs) {
        if (kind == null || key == null || blobs == null || blobs.stream().anyMatch(java.util.Objects::isNull)) {
            throw new IllegalArgumentException("persistent cache store needs an engine kind, a key and non-null blobs");
        }
        Settings s = settings;
        if (!s.enabled(kind)) {
            return false;
        }
        byte[] keyFile = EntryFormat.encodeKey(key);
        byte[] kernelFile = EntryFormat.encodeKernel(keyFile, blobs);
        long capacity = s.capacityMegabytes() > MAX_MEGABYTES ? Long.MAX_VALUE : s.capacityMegabytes() << 20;
        if (kernelFile == null || (long) keyFile.length + kernelFile.length > capacity) {
            LOG.debug("persistent cache: an entry of {} blobs is larger than the capacity of {} MB; not stored",
                    blobs.size(), s.capacityMegabytes());
            return false;
        }
        try {
            Path dir = trusted(create(s.directory()));
            if (dir == null) {
                return false;
            }
            boolean stored = write(dir, capacity, key, keyFile, kernelFile);
            if (stored) {
                stores.increment();
            }
            return stored;
        } catch (IOException | RuntimeException e) {
            warnOnce("store into " + s.directory() + " failed", e);
            return false;
        }
    }

    @Override
    public boolean remove(DeviceKind kind, byte[] key) {
        if (kind == null || key == null) {
            throw new IllegalArgumentException("persistent cache remove needs an engine kind and a key");
        }
        Settings s = settings;
        if (!s.enabled(kind)) {
            return false;
        }
        try {
            Path dir = trusted(s.directory());
            if (dir == null) {
                return false;
            }
            String bucketName = EntryFormat.bucket(key);
            Path bucket = dir.resolve(bucketName);
            return DirLock.of(dir, FileSecurity.ownerOnly(dir, false)).exclusive(() -> {
                for (Path entry : entries(bucket)) {
                    if (examine(entry, bucketName, key) instanceof Match) {
                        deleteTree(entry);
                        deleteIfEmpty(bucket);
                        reject(entry, Reject.REFUSED, "refused by the backend that loaded it");
                        LOG.warn("persistent cache: removed entry {} (refused by the backend that loaded it); it will be"
                                + " rebuilt", entry);
                        walk(dir, Long.MAX_VALUE, false); // recounts size.txt
                        return true;
                    }
                }
                return false;
            });
        } catch (IOException | RuntimeException e) {
            warnOnce("remove from " + s.directory() + " failed", e);
            return false;
        }
    }

    private boolean write(Path dir, long capacity, byte[] key, byte[] keyFile, byte[] kernelFile) throws IOException {
        FileAttribute<?>[] dirAttrs = FileSecurity.ownerOnly(dir, true);
        FileAttribute<?>[] fileAttrs = FileSecurity.ownerOnly(dir, false);
        long entrySize = (long) keyFile.length + kernelFile.length;
        String bucketName = EntryFormat.bucket(key);
        return DirLock.of(dir, fileAttrs).exclusive(() -> {
            removeTemporaries(dir);
            Size size = recounted.add(dir) ? null : readSize(dir);
            if (size == null) {
                size = walk(dir, Long.MAX_VALUE);
            }
            Path bucket = dir.resolve(bucketName);
            for (Path entry : entries(bucket)) {
                Examined e = examine(entry, bucketName, key);
                if (e instanceof Match) {
                    return true; // another thread or process stored it first
                }
                if (e instanceof Bad) {
                    size = removeIfDamaged(entry, bucketName, size);
                }
            }
            if (size.bytes() + entrySize > capacity) {
                size = walk(dir, capacity - entrySize);
            }
            Path tmp = dir.resolve(TMP_DIR);
            mkdir(tmp, dirAttrs);
            Path staging = tmp.resolve(ProcessHandle.current().pid() + "-" + tmpCounter.incrementAndGet());
            Files.createDirectory(staging, dirAttrs);
            Files.write(Files.createFile(staging.resolve(KEY_FILE), fileAttrs), keyFile);
            Files.write(Files.createFile(staging.resolve(KERNEL_FILE), fileAttrs), kernelFile);
            mkdir(bucket, dirAttrs);
            Path target = bucket.resolve(Integer.toString(freeNumber(bucket)));
            try {
                Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                throw new IOException("the file system of " + dir + " cannot rename a directory atomically", e);
            }
            writeSize(dir, new Size(size.bytes() + entrySize, size.entries() + 1));
            return true;
        });
    }

    // ---- the directory ----

    /** The directory, created owner-only if missing. */
    private static Path create(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            Path parent = dir.getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            mkdir(dir, FileSecurity.ownerOnly(parent != null ? parent : dir, true));
        }
        return dir;
    }

    private static void mkdir(Path dir, FileAttribute<?>[] attrs) throws IOException {
        try {
            Files.createDirectory(dir, attrs);
        } catch (FileAlreadyExistsException e) {
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                throw e;
            }
        }
    }

    /** The real path of the directory when it exists and may be trusted; otherwise null (refusal logged once). */
    private Path trusted(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return null;
        }
        String why = FileSecurity.insecurity(dir, true);
        if (why != null) {
            problem = why;
            if (logged.add("refused " + why)) {
                LOG.error("persistent cache directory refused: {}. Loading kernels from it could run another "
                        + "user's code; the store stays off until it is fixed (e.g. chmod 700 {})", why, dir);
            }
            return null;
        }
        problem = null;
        return dir.toRealPath();
    }

    /** Entry directories of a bucket, in number order. */
    private static List<Path> entries(Path bucket) throws IOException {
        TreeSet<Integer> numbers = numbers(bucket);
        List<Path> out = new ArrayList<>(numbers.size());
        for (int n : numbers) {
            out.add(bucket.resolve(Integer.toString(n)));
        }
        return out;
    }

    private static TreeSet<Integer> numbers(Path bucket) throws IOException {
        TreeSet<Integer> numbers = new TreeSet<>();
        if (!Files.isDirectory(bucket, LinkOption.NOFOLLOW_LINKS)) {
            return numbers;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(bucket)) {
            for (Path p : ds) {
                String name = p.getFileName().toString();
                if (isEntryNumber(name)) {
                    numbers.add(Integer.parseInt(name));
                }
            }
        } catch (NoSuchFileException e) {
            // removed meanwhile by another process's eviction: an empty bucket
        }
        return numbers;
    }

    /**
     * "0" or a decimal without leading zero of at most 9 digits. Checked by hand: this runs on every
     * store lookup, and a regex costs a fresh JVM its pattern compiler on the warm-start path.
     */
    static boolean isEntryNumber(String name) {
        int n = name.length();
        if (n == 0 || n > 9 || (n > 1 && name.charAt(0) == '0')) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            char c = name.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    private static int freeNumber(Path bucket) throws IOException {
        int n = 0;
        for (int used : numbers(bucket)) {
            if (used != n) {
                break;
            }
            n++;
        }
        return n;
    }

    /**
     * Checks an entry: its files' ownership and permissions, both headers and lengths, the checksum
     * over both files, and that its key belongs to this bucket (a consistent entry in the wrong bucket
     * was moved there). A valid entry with another key is a hash collision ({@link Other}).
     */
    private static Examined examine(Path entry, String bucketName, byte[] wanted) throws IOException {
        for (Path p : new Path[] {entry.getParent(), entry, entry.resolve(KEY_FILE), entry.resolve(KERNEL_FILE)}) {
            if (Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
                String why = FileSecurity.insecurity(p, false);
                if (why != null) {
                    return new Bad(Reject.PERMISSION, why);
                }
            }
        }
        byte[] keyFile;
        byte[] kernelFile;
        try {
            keyFile = Files.readAllBytes(entry.resolve(KEY_FILE));
            kernelFile = Files.readAllBytes(entry.resolve(KERNEL_FILE));
        } catch (NoSuchFileException e) {
            return Files.isDirectory(entry) ? new Bad(Reject.TRUNCATED, e.getFile() + " is missing") : new Other();
        }
        Object key = EntryFormat.decodeKey(keyFile);
        if (key instanceof EntryFormat.Problem p) {
            return new Bad(p.reason(), p.detail());
        }
        Object kernel = EntryFormat.decodeKernel(keyFile, kernelFile);
        if (kernel instanceof EntryFormat.Problem p) {
            return new Bad(p.reason(), p.detail());
        }
        byte[] k = (byte[]) key;
        String home = EntryFormat.bucket(k);
        if (!home.equals(bucketName)) {
            return new Bad(Reject.KEY_MISMATCH, "its key belongs to bucket " + home + ", not " + bucketName);
        }
        @SuppressWarnings("unchecked")
        List<byte[]> blobs = (List<byte[]>) kernel;
        return wanted != null && Arrays.equals(k, wanted) ? new Match(blobs) : new Other();
    }

    private void reject(Path entry, Reject reason, String detail) {
        rejects.get(reason).increment();
        rejections.addLast(new PersistentCacheStats.Rejection(entry.toString(), reason, detail));
        while (rejections.size() > PersistentCacheStats.RECENT_REJECTIONS) {
            rejections.pollFirst();
        }
    }

    /** Under the exclusive lock: removes the entry if it is (still) damaged, counting and logging it once. */
    private Size removeIfDamaged(Path entry, String bucketName, Size size) throws IOException {
        Size after = removeIfDamaged(entry, bucketName);
        return after != null ? after : size;
    }

    /** The recounted totals after a removal, or null when the entry is fine (nothing done). */
    private Size removeIfDamaged(Path entry, String bucketName) throws IOException {
        if (!(examine(entry, bucketName, null) instanceof Bad bad)) {
            return null;
        }
        reject(entry, bad.reason(), bad.detail());
        Path bucket = entry.getParent();
        if (bad.reason() == Reject.PERMISSION && FileSecurity.insecurity(bucket, false) != null) {
            // the bucket itself is unsafe: its other entries cannot be trusted either
            LOG.warn("persistent cache: removed bucket {} ({}: {}); its entries will be rebuilt", bucket,
                    bad.reason().spelling(), bad.detail());
            deleteTree(bucket);
        } else {
            deleteTree(entry);
            LOG.warn("persistent cache: removed entry {} ({}: {}); it will be rebuilt on its next compile", entry,
                    bad.reason().spelling(), bad.detail());
        }
        // a damaged entry's files no longer have the sizes size.txt counted: recount (rejects are rare)
        return walk(bucket.getParent(), Long.MAX_VALUE, false);
    }

    /**
     * Walks every entry and, oldest first, removes entries until the total is at most {@code limit};
     * returns the remaining totals (so Long.MAX_VALUE only recounts). A recount that disagrees with
     * size.txt is logged.
     */
    private Size walk(Path dir, long limit) throws IOException {
        return walk(dir, limit, true);
    }

    /** @param report whether a disagreement with size.txt is news (not after a removal of our own) */
    private Size walk(Path dir, long limit, boolean report) throws IOException {
        record Found(Path path, long created, long bytes) {
        }
        List<Found> all = new ArrayList<>();
        long total = 0;
        try (DirectoryStream<Path> buckets = Files.newDirectoryStream(dir)) {
            for (Path bucket : buckets) {
                if (!EntryFormat.isBucketName(bucket.getFileName().toString())
                        || !Files.isDirectory(bucket, LinkOption.NOFOLLOW_LINKS)) {
                    continue;
                }
                List<Path> entries = entries(bucket);
                if (entries.isEmpty()) {
                    deleteTree(bucket);
                }
                for (Path e : entries) {
                    long created;
                    try {
                        BasicFileAttributes a = Files.readAttributes(e.resolve(KERNEL_FILE), BasicFileAttributes.class,
                                LinkOption.NOFOLLOW_LINKS);
                        created = a.creationTime().to(java.util.concurrent.TimeUnit.NANOSECONDS);
                    } catch (NoSuchFileException x) {
                        created = Long.MIN_VALUE; // half an entry: the first to go
                    }
                    long bytes = entryBytes(e);
                    all.add(new Found(e, created, bytes));
                    total += bytes;
                }
            }
        }
        Size recorded = readSize(dir);
        if (report && recorded != null && (recorded.bytes() != total || recorded.entries() != all.size())) {
            LOG.info("persistent cache: {} said {} bytes in {} entries, the directory holds {} in {}; corrected",
                    dir.resolve(SIZE_FILE), recorded.bytes(), recorded.entries(), total, all.size());
        }
        long entries = all.size();
        if (total > limit) {
            all.sort(Comparator.comparingLong(Found::created).thenComparing(f -> f.path().toString()));
            for (Found f : all) {
                if (total <= limit) {
                    break;
                }
                deleteTree(f.path());
                total -= f.bytes();
                entries--;
                deleteIfEmpty(f.path().getParent());
            }
        }
        Size size = new Size(total, entries);
        writeSize(dir, size);
        return size;
    }

    private static long entryBytes(Path entry) throws IOException {
        long bytes = 0;
        for (String f : new String[] {KEY_FILE, KERNEL_FILE}) {
            try {
                bytes += Files.size(entry.resolve(f));
            } catch (NoSuchFileException e) {
                // counts as nothing
            }
        }
        return bytes;
    }

    /** Under the exclusive lock no writer is live, so every temporary is a leftover (a killed writer). */
    private static void removeTemporaries(Path dir) throws IOException {
        Path tmp = dir.resolve(TMP_DIR);
        if (!Files.isDirectory(tmp, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(tmp)) {
            for (Path p : ds) {
                deleteTree(p);
            }
        }
    }

    private static void deleteTree(Path p) throws IOException {
        if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(p)) {
                for (Path c : ds) {
                    deleteTree(c);
                }
            } catch (NoSuchFileException e) {
                return;
            }
        }
        Files.deleteIfExists(p);
    }

    private static void deleteIfEmpty(Path dir) throws IOException {
        try {
            Files.deleteIfExists(dir);
        } catch (java.nio.file.DirectoryNotEmptyException e) {
            // other entries remain
        }
    }

    /** The totals in size.txt, or null when it is missing or malformed. */
    private static Size readSize(Path dir) throws IOException {
        String text;
        try {
            text = Files.readString(dir.resolve(SIZE_FILE), StandardCharsets.US_ASCII).trim();
        } catch (NoSuchFileException | java.nio.charset.MalformedInputException e) {
            return null;
        }
        String[] parts = text.split(" ");
        if (parts.length != 2 || !parts[0].matches("\\d{1,18}") || !parts[1].matches("\\d{1,18}")) {
            return null;
        }
        return new Size(Long.parseLong(parts[0]), Long.parseLong(parts[1]));
    }

    /** Replaces size.txt atomically (readers without the lock see the old or the new totals). */
    private void writeSize(Path dir, Size size) throws IOException {
        Path tmp = dir.resolve(TMP_DIR);
        mkdir(tmp, FileSecurity.ownerOnly(dir, true));
        Path t = tmp.resolve("size-" + ProcessHandle.current().pid() + "-" + tmpCounter.incrementAndGet());
        Files.writeString(Files.createFile(t, FileSecurity.ownerOnly(dir, false)),
                size.bytes() + " " + size.entries() + "\n", StandardCharsets.US_ASCII);
        Files.move(t, dir.resolve(SIZE_FILE), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    private void warnOnce(String what, Exception e) {
        if (logged.add(what + ": " + e)) {
            LOG.warn("persistent cache: {} ({}); continuing without it", what, e.toString());
        }
    }

    @Override
    public PersistentCacheStats stats() {
        Settings s = settings;
        Size size = null;
        if (s.directory() != null) {
            try {
                size = readSize(s.directory());
            } catch (IOException e) {
                // shown as empty
            }
        }
        Map<Reject, Long> r = new EnumMap<>(Reject.class);
        rejects.forEach((k, v) -> r.put(k, v.sum()));
        return new PersistentCacheStats(s.directory() == null ? null : s.directory().toString(), s.capacityMegabytes(),
                s.engines(), size == null ? 0 : size.entries(), size == null ? 0 : size.bytes(), hits.sum(),
                misses.sum(), stores.sum(), r, problem, List.copyOf(rejections));
    }
}
