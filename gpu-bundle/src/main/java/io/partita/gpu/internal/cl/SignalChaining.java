package io.partita.gpu.internal.cl;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the JVM runs with HotSpot's signal chaining ({@code libjsig}). OpenCL drivers built on LLVM
 * (PoCL) install LLVM's crash handlers for SIGSEGV, SIGBUS, SIGILL and SIGFPE over the JVM's when a
 * device is opened; the JVM uses those signals itself (implicit null checks in compiled code), so
 * without chaining the next such signal ends the process with no error report. The {@code partita}
 * launcher and the build's test forks preload {@code libjsig}; an embedding application must do so.
 */
public final class SignalChaining {
    private static final Logger LOG = LoggerFactory.getLogger(SignalChaining.class);
    private static final AtomicBoolean WARNED = new AtomicBoolean();

    private SignalChaining() {
    }

    /** Whether {@code libjsig} is mapped into this process (Linux: {@code /proc/self/maps}); true elsewhere. */
    public static boolean active() {
        return active(Path.of("/proc/self/maps"), System.getProperty("os.name", ""));
    }

    static boolean active(Path maps, String os) {
        if (!os.toLowerCase(Locale.ROOT).contains("linux")) {
            return true; // macOS chains through its own libjsig too, but nothing here checks it
        }
        try {
            return Files.readString(maps).contains("libjsig");
        } catch (IOException | SecurityException e) {
            return true; // cannot tell: do not warn on a guess
        }
    }

    /** Logs once per process when devices are in use without chaining, naming the fix. */
    public static void warnIfMissing() {
        if (!active() && WARNED.compareAndSet(false, true)) {
            LOG.warn("the JVM runs without signal chaining: an OpenCL driver built on LLVM (PoCL) replaces the"
                    + " JVM's SIGSEGV/SIGBUS/SIGILL/SIGFPE handlers when a device is opened, and a later signal the"
                    + " JVM relies on can end the process without an error report; start the JVM with"
                    + " LD_PRELOAD={}/lib/libjsig.so (the partita launcher does)", System.getProperty("java.home"));
        }
    }
}
