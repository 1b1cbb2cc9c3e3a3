package io.partita.spi;

/** A thread other than any arena's owner (never started): asks whether memory is confined. */
final class ThreadProbe {
    static final Thread OTHER = Thread.ofPlatform().unstarted(() -> { });

    private ThreadProbe() {
    }
}
