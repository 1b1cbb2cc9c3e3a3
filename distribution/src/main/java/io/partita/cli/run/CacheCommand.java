package io.partita.cli.run;

import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.Callable;

import io.partita.cache.CacheManager;
import io.partita.cache.CacheStats;
import io.partita.cache.Device;
import io.partita.cache.InvalidCacheSettingException;
import io.partita.cache.KernelCacheStats;
import io.partita.cache.PersistentCacheStats;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code cache}: statistics of every cache; {@code cache capacity KIND[.DEVICE] MEGABYTES|unlimited};
 * {@code cache policy KIND[.DEVICE] no_evict|lru|cost}; {@code cache kernel NAME ENTRIES}.
 */
@Command(name = "cache", description = "Shows cache statistics, or sets a capacity or policy: "
        + "cache | cache capacity cpu 1024 | cache policy cpu lru | cache kernel primitives 512")
public final class CacheCommand implements Callable<Integer> {
    private final CacheManager caches;
    private final PrintStream out;

    @Parameters(arity = "0..3", paramLabel = "ARGS", description = "capacity|policy|kernel TARGET VALUE")
    String[] args = new String[0];

    public CacheCommand(CacheManager caches, PrintStream out) {
        this.caches = caches;
        this.out = out;
    }

    @Override
    public Integer call() {
        try {
            if (args.length == 0) {
                print(caches, out);
                return 0;
            }
            if (args.length != 3) {
                throw new BadInputException("expected 'cache', 'cache capacity TARGET MB', 'cache policy TARGET POLICY' "
                        + "or 'cache kernel NAME ENTRIES'");
            }
            String target = args[1].toLowerCase(Locale.ROOT);
            switch (args[0]) {
                case "capacity" -> caches.applyConstantTensorCacheSettings(target + ":" + args[2]);
                case "policy" -> caches.applyConstantTensorCachePolicies(target + ":" + args[2]);
                case "kernel" -> caches.setKernelCacheCapacity(args[1], entries(args[2]));
                default -> throw new BadInputException("unknown cache setting '" + args[0]
                        + "'; expected capacity, policy or kernel");
            }
            print(caches, out);
            return 0;
        } catch (InvalidCacheSettingException e) {
            throw new BadInputException(e.getMessage());
        }
    }

    private static int entries(String text) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new BadInputException("'" + text + "' is not a number of entries");
        }
    }

    /** Prints one line per cache (the persistent store included), and the last refused setting if any. */
    static void print(CacheManager caches, PrintStream out) {
        caches.constantTensorCache(Device.CPU); // always shown, even before a backend used it
        for (CacheStats s : caches.constantTensorCacheStats()) {
            out.println("constant tensor cache " + s.describe());
        }
        for (KernelCacheStats s : caches.kernelCacheStats()) {
            out.println("kernel cache " + s.describe());
        }
        PersistentCacheStats persistent = caches.persistentCache().stats();
        out.println("persistent cache " + persistent.describe());
        for (PersistentCacheStats.Rejection r : persistent.rejections()) {
            out.println("  rejected entry " + r.describe());
        }
        caches.lastSettingError().ifPresent(e -> out.println("last refused setting: " + e));
    }
}
