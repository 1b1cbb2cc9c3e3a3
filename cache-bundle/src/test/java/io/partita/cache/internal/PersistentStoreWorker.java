package io.partita.cache.internal;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;

import io.partita.cache.DeviceKind;
import io.partita.cache.PersistentCacheStats;

/**
 * A second process for {@link PersistentStoreProcessTest}: {@code mixed DIR MB KEYS OPS SEED} stores and
 * loads random keys, checking every load against the blobs the key derives; {@code big DIR MB KEYS
 * BYTES} stores large entries one after another, printing {@code stored K} after each. Exit 0 when
 * every load was whole, 3 at the first torn or foreign read, 4 when an entry was rejected.
 */
public final class PersistentStoreWorker {
    private PersistentStoreWorker() {
    }

    public static void main(String[] args) {
        String mode = args[0];
        PersistentStore store = StoreFixtures.store(Path.of(args[1]), Long.parseLong(args[2]));
        int keys = Integer.parseInt(args[3]);
        if (mode.equals("big")) {
            int bytes = Integer.parseInt(args[4]);
            for (int k = 0; k < keys; k++) {
                if (store.store(DeviceKind.GPU, StoreFixtures.key(k), List.of(bigBlob(k, bytes)))) {
                    System.out.println("stored " + k);
                    System.out.flush();
                }
            }
            System.out.println("done");
            return;
        }
        int ops = Integer.parseInt(args[4]);
        SplittableRandom r = new SplittableRandom(Long.parseLong(args[5]));
        for (int i = 0; i < ops; i++) {
            int k = r.nextInt(keys);
            if (r.nextBoolean()) {
                store.store(DeviceKind.GPU, StoreFixtures.key(k), StoreFixtures.blobs(k, MIXED_BLOB));
            } else {
                Optional<List<byte[]>> got = store.load(DeviceKind.GPU, StoreFixtures.key(k));
                if (got.isPresent() && !StoreFixtures.same(got.get(), StoreFixtures.blobs(k, MIXED_BLOB))) {
                    System.out.println("TORN key " + k);
                    System.exit(3);
                }
            }
        }
        PersistentCacheStats s = store.stats();
        System.out.println("hits=" + s.hits() + " misses=" + s.misses() + " stores=" + s.stores() + " rejects="
                + s.rejected());
        System.exit(s.rejected() == 0 ? 0 : 4);
    }

    static final int MIXED_BLOB = 20_000;

    /** Large, cheap to make and to check: the key's number repeated with its position. */
    static byte[] bigBlob(int k, int bytes) {
        byte[] b = new byte[bytes];
        for (int i = 0; i < bytes; i++) {
            b[i] = (byte) (k * 31 + (i >>> 10));
        }
        return b;
    }
}
