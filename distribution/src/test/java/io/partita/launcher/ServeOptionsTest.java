package io.partita.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

class ServeOptionsTest {
    private static final Map<String, String> CREDENTIALS = Map.of(Serve.CONSOLE_USER_ENV, "ops",
            Serve.CONSOLE_PASSWORD_ENV, "long-enough");

    @Test
    void theConsoleIsOffUnlessAPortIsGivenAndBindsToLoopbackByDefault() throws Exception {
        Serve.Options none = Serve.options(new String[] { "serve", "--port", "9010" }, CREDENTIALS);
        assertEquals(9010, none.jmxPort());
        assertNull(none.console());
        Serve.Options on = Serve.options(new String[] { "serve", "--console-port=8443" }, CREDENTIALS);
        assertEquals(0, on.jmxPort());
        assertEquals("127.0.0.1", on.console().host());
        assertEquals(8443, on.console().port());
        assertEquals("http://127.0.0.1:8443/system/console/partita", on.console().url());
        assertFalse(on.console().toString().contains("long-enough"), on.console().toString());
        Serve.Options any = Serve.options(new String[] { "serve", "--console-port", "8443", "--console-host", "0.0.0.0" },
                CREDENTIALS);
        assertEquals("0.0.0.0", any.console().host());
    }

    @Test
    void thePasswordReachesTheWebConsoleOnlyAsItsHash() {
        Map<String, String> props = Serve.consoleProperties(new Serve.Console("127.0.0.1", 8443, "ops", "admin"));
        // the Web Console's own {sha-256} form: base64 of SHA-256("admin") is its published default hash
        assertEquals("{sha-256}jGl25bVBBBW96Qi9Te4V37Fnqchz/Eu4qB9vKrRIqRg=", props.get("felix.webconsole.password"));
        assertEquals("ops", props.get("felix.webconsole.username"));
        assertEquals("127.0.0.1", props.get("org.apache.felix.http.host"));
        assertEquals("8443", props.get("org.osgi.service.http.port"));
        assertFalse(props.containsValue("admin"));
    }

    @Test
    void eachBadArgumentOrMissingCredentialIsAUsageErrorNamingIt() {
        record Bad(String[] args, Map<String, String> env, String says) {
        }
        for (Bad b : new Bad[] {
                new Bad(new String[] { "serve", "--console-port", "8443" }, Map.of(), "has no default credentials"),
                new Bad(new String[] { "serve", "--console-port", "8443" }, Map.of(Serve.CONSOLE_USER_ENV, "ops"),
                        "has no default credentials"),
                new Bad(new String[] { "serve", "--console-port", "8443" }, Map.of(Serve.CONSOLE_USER_ENV, "ops",
                        Serve.CONSOLE_PASSWORD_ENV, "short"), "has 5 characters; expected at least 8"),
                new Bad(new String[] { "serve", "--console-port", "8443" }, Map.of(Serve.CONSOLE_USER_ENV, "o:ps",
                        Serve.CONSOLE_PASSWORD_ENV, "long-enough"), "contains ':'"),
                new Bad(new String[] { "serve", "--console-port", "http" }, CREDENTIALS, "--console-port 'http' is not a port"),
                new Bad(new String[] { "serve", "--console-port", "70000" }, CREDENTIALS, "'70000' is not a port"),
                new Bad(new String[] { "serve", "--console-port" }, CREDENTIALS, "--console-port needs a value"),
                new Bad(new String[] { "serve", "--console-host", "127.0.0.1" }, CREDENTIALS, "needs --console-port"),
                new Bad(new String[] { "serve", "--port", "9000", "--console-port", "9000" }, CREDENTIALS,
                        "is also the JMX --port"),
                new Bad(new String[] { "serve", "--console-port", "8443", "--console-host", "192.0.2.77" }, CREDENTIALS,
                        "is not an address of this machine"),
                new Bad(new String[] { "serve", "--web" }, CREDENTIALS, "unknown argument '--web'") }) {
            PartitaLauncher.LaunchException e = assertThrows(PartitaLauncher.LaunchException.class,
                    () -> Serve.options(b.args(), b.env()), String.join(" ", b.args()));
            assertEquals(2, e.exitCode, e.getMessage());
            assertTrue(e.getMessage().contains(b.says()), e.getMessage());
        }
    }

    @Test
    void aConsolePortInUseIsReportedBeforeTheContainerStarts() throws Exception {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            Serve.Console c = new Serve.Console("127.0.0.1", taken.getLocalPort(), "ops", "long-enough");
            PartitaLauncher.LaunchException e = assertThrows(PartitaLauncher.LaunchException.class,
                    () -> Serve.checkConsolePort(c));
            assertEquals(3, e.exitCode, e.getMessage());
            assertTrue(e.getMessage().startsWith("serve: cannot open the web console on 127.0.0.1:" + taken.getLocalPort()),
                    e.getMessage());
            assertFalse(Serve.awaitConsole(new Serve.Console("127.0.0.1", freePort(), "ops", "long-enough"), 300),
                    "nothing listens on a free port");
            assertTrue(Serve.awaitConsole(c, 300), "a listening port is seen");
        }
    }

    private static int freePort() throws java.io.IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
