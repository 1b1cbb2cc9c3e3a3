package io.partita.it;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assume.assumeFalse;
import static org.ops4j.pax.tinybundles.TinyBundles.bundle;

import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Base64;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.osgi.framework.Constants;

import io.partita.it.console.WorkloadActivator;

/**
 * The web console as an operator meets it: {@code partita serve --console-port} with credentials,
 * an application bundle running graphs beside Partita, and the Partita page in a real headless
 * Chromium (Debian's {@code chromium} and {@code chromium-driver}). The page loads, its tables
 * list the backends, the hit-rate chart draws points, the capacity form changes the cache (checked
 * over JMX), a bad value is refused and changes nothing, and nobody gets in without the
 * configured credentials (the Web Console's own admin/admin included).
 */
public class WebConsoleIT {
    private static final String USER = "ops";
    private static final String PASSWORD = "console-it-" + Long.toHexString(System.nanoTime());
    private static final Path CHROMIUM = Path.of(System.getProperty("partita.chromium", "/usr/bin/chromium"));
    private static final Path CHROMEDRIVER = Path.of(System.getProperty("partita.chromedriver", "/usr/bin/chromedriver"));

    private static Path home;
    private static Path log;
    private static Process serve;
    private static int consolePort;
    private static int jmxPort;

    @BeforeClass
    public static void serveWithTheConsoleAndAWorkload() throws Exception {
        assumeFalse("browser tests skipped (-Dpartita.skipBrowserTests=true)", Boolean.getBoolean("partita.skipBrowserTests"));
        assertTrue("the web console test drives Chromium: install Debian's chromium and chromium-driver ("
                + CHROMIUM + ", " + CHROMEDRIVER + "; .ci/run does) or pass -Dpartita.skipBrowserTests=true",
                Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER));
        // A copy of the distribution with an application bundle beside Partita's
        home = Files.createTempDirectory("partita-console-it");
        Path dist = ContainerSupport.home().toAbsolutePath();
        try (Stream<Path> all = Files.walk(dist)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                Path to = home.resolve(dist.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(p, to, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
        try (InputStream jar = bundle().addClass(WorkloadActivator.class).symbolicName("io.partita.test.workload")
                .activator(WorkloadActivator.class)
                .setHeader(Constants.IMPORT_PACKAGE, "io.partita.graph,org.osgi.framework,org.osgi.util.tracker")
                .build()) {
            Files.copy(jar, home.resolve("bundle").resolve("zz-workload.jar"));
        }
        consolePort = freePort();
        jmxPort = freePort();
        log = Files.createTempFile("partita-console", ".log");
        ProcessBuilder pb = new ProcessBuilder(home.resolve("bin/partita").toString(), "serve", "--port", "" + jmxPort,
                "--console-port", "" + consolePort).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().put("PARTITA_CONSOLE_USER", USER);
        pb.environment().put("PARTITA_CONSOLE_PASSWORD", PASSWORD);
        serve = pb.start();
        serve.getOutputStream().close();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (!out().contains("partita: serving") && serve.isAlive() && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertTrue(out(), out().contains("web console at http://127.0.0.1:" + consolePort + "/system/console/partita"));
        assertTrue(out(), !out().contains(PASSWORD));
    }

    @AfterClass
    public static void stop() throws Exception {
        if (serve != null) {
            serve.destroy();
            assertTrue("stopped within 60 s", serve.waitFor(60, TimeUnit.SECONDS));
        }
        if (home != null) {
            try (Stream<Path> all = Files.walk(home)) {
                all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        if (log != null) {
            Files.deleteIfExists(log);
        }
    }

    @Test
    public void thePageShowsTheContainerChartsHitRatesAndItsFormChangesTheCache() throws Exception {
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        // root in a container: no sandbox; small /dev/shm on CI machines
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1600");
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort().build();
        WebDriver driver = new ChromeDriver(service, options);
        try {
            driver.get("http://" + USER + ":" + PASSWORD + "@127.0.0.1:" + consolePort + "/system/console/partita");
            WebDriverWait wait = new WebDriverWait(driver, Duration.ofSeconds(30));
            wait.withMessage(() -> "page status: " + status(driver) + "\nserve log:\n" + out());
            wait.until(d -> d.findElements(By.cssSelector("#partita-backends tbody tr")).size() >= 5);
            String backends = driver.findElement(By.id("partita-backends")).getText();
            assertTrue(backends, backends.contains("dnnl") && backends.contains("reference")
                    && (backends.contains("512-bit") || backends.contains("256-bit") || backends.contains("128-bit")));
            // The workload's graphs show up as claims and compiled partitions
            wait.until(d -> d.findElement(By.id("partita-backends")).getText().contains("MatMul ×"));
            String partitions = driver.findElement(By.id("partita-partitions")).getText();
            assertTrue(partitions, partitions.contains("MatMul#0") && partitions.contains("f32[8,64] f32[64,64] ->"));

            // The chart: points drawn from successive snapshots, in colour on the canvas
            WebElement chart = driver.findElement(By.id("partita-hit-chart"));
            wait.until(d -> Integer.parseInt(chart.getAttribute("data-points")) >= 3);
            long coloured = (Long) ((JavascriptExecutor) driver).executeScript(
                    "var c = document.getElementById('partita-hit-chart');"
                    + "var d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; var n = 0;"
                    + "for (var i = 0; i < d.length; i += 4) { if (d[i+3] > 0 && !(d[i] == d[i+1] && d[i+1] == d[i+2])) n++; }"
                    + "return n;");
            assertTrue("coloured chart pixels: " + coloured, coloured > 20);
            String legend = driver.findElement(By.id("partita-chart-legend")).getText();
            assertTrue(legend, legend.contains("constant cpu") && legend.contains("compiled_partitions"));

            // The form: a capacity and a policy for the CPU caches
            setField(driver, "partita-target", "cpu");
            setField(driver, "partita-capacity", "123");
            new org.openqa.selenium.support.ui.Select(driver.findElement(By.id("partita-policy"))).selectByValue("lru");
            driver.findElement(By.id("partita-apply")).click();
            wait.until(d -> d.findElement(By.id("partita-status")).getText().contains("applied cpu: policy lru capacity 123 MB"));
            try (JMXConnector c = JMXConnectorFactory.connect(new JMXServiceURL(
                    "service:jmx:rmi:///jndi/rmi://localhost:" + jmxPort + "/jmxrmi"))) {
                MBeanServerConnection mbs = c.getMBeanServerConnection();
                ObjectName cpu = new ObjectName("io.partita:type=ConstantTensorCache,device=cpu");
                assertEquals(123L, mbs.getAttribute(cpu, "CapacityMegabytes"));
                assertEquals("lru", mbs.getAttribute(cpu, "Policy"));

                // A bad value is refused by name and changes nothing
                setField(driver, "partita-capacity", "-5");
                driver.findElement(By.id("partita-apply")).click();
                wait.until(d -> d.findElement(By.id("partita-status")).getText().startsWith("Refused: capacity '-5'"));
                assertTrue(driver.findElement(By.id("partita-status")).getAttribute("class").contains("error"));
                assertEquals(123L, mbs.getAttribute(cpu, "CapacityMegabytes"));
            }
            wait.until(d -> d.findElement(By.id("partita-constant-caches")).getText().contains("123.0 MB"));
            // for a look at what was tested: target/web-console.png
            Files.write(Path.of("target", "web-console.png"),
                    ((org.openqa.selenium.TakesScreenshot) driver).getScreenshotAs(org.openqa.selenium.OutputType.BYTES));
        } finally {
            driver.quit();
        }
    }

    @Test
    public void nobodyGetsInWithoutTheConfiguredCredentialsNorChangesWithoutThePagesHeader() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        String page = "http://127.0.0.1:" + consolePort + "/system/console/partita";
        assertEquals(401, get(http, page, null).statusCode());
        assertEquals(401, get(http, page, "admin:admin").statusCode());
        assertEquals(401, get(http, page, USER + ":wrong-password").statusCode());
        assertEquals(401, get(http, "http://127.0.0.1:" + consolePort + "/system/console/bundles", "admin:admin").statusCode());
        HttpResponse<String> ok = get(http, page + "/data.json", USER + ":" + PASSWORD);
        assertEquals(ok.body(), 200, ok.statusCode());
        assertTrue(ok.body(), ok.body().contains("\"backends\"") && ok.body().contains("\"kernelCaches\""));
        // a form posted from another site carries the credentials but not the page's header
        HttpResponse<String> crossSite = http.send(HttpRequest.newBuilder(URI.create(page + "/settings"))
                .header("Authorization", basic(USER + ":" + PASSWORD))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("target=cpu&capacity=0")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(crossSite.body(), 403, crossSite.statusCode());
        HttpResponse<String> otherOrigin = http.send(HttpRequest.newBuilder(URI.create(page + "/settings"))
                .header("Authorization", basic(USER + ":" + PASSWORD)).header("X-Partita-Console", "1")
                .header("Origin", "http://evil.example:8080")
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("target=cpu&capacity=0")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(otherOrigin.body(), 403, otherOrigin.statusCode());
    }

    private static String status(WebDriver driver) {
        try {
            return driver.findElement(By.id("partita-status")).getText();
        } catch (RuntimeException e) {
            return "(no status element: " + e.getMessage() + ") " + driver.getPageSource();
        }
    }

    private static void setField(WebDriver driver, String id, String value) {
        WebElement e = driver.findElement(By.id(id));
        e.clear();
        e.sendKeys(value);
    }

    private static HttpResponse<String> get(HttpClient http, String url, String credentials)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).GET();
        if (credentials != null) {
            b.header("Authorization", basic(credentials));
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String basic(String credentials) {
        return "Basic " + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8));
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static String out() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return e.toString();
        }
    }
}
