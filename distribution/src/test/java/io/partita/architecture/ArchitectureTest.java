package io.partita.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.Manifest;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;

import aQute.bnd.header.Parameters;

/**
 * The module rules of DESIGN.md, checked on the bytecode of every Partita bundle on the class path:
 * exported packages (read from the bundles' manifests, as OSGi sees them) use only exported
 * packages, backends never reach each other, nothing reaches into the distribution, and no
 * package cycles.
 */
class ArchitectureTest {
    private static JavaClasses partita;
    /** Exported package name to the bundle exporting it. */
    private static Map<String, String> exported;
    /** Bundle symbolic name to its manifest. */
    private static Map<String, Manifest> manifests;

    @BeforeAll
    static void importClasses() throws IOException {
        partita = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.partita");
        exported = new TreeMap<>();
        manifests = new TreeMap<>();
        for (URL url : Collections.list(ArchitectureTest.class.getClassLoader().getResources("META-INF/MANIFEST.MF"))) {
            try (InputStream in = url.openStream()) {
                Manifest m = new Manifest(in);
                String bsn = m.getMainAttributes().getValue("Bundle-SymbolicName");
                if (bsn == null || !bsn.startsWith("io.partita")) {
                    continue;
                }
                String name = new Parameters(bsn).keySet().iterator().next();
                manifests.put(name, m);
                String exports = m.getMainAttributes().getValue("Export-Package");
                if (exports != null) {
                    for (String pkg : new Parameters(exports).keySet()) {
                        exported.put(pkg, name);
                    }
                }
            }
        }
        assertTrue(manifests.keySet().containsAll(Set.of("io.partita.api", "io.partita.runtime", "io.partita.formats",
                "io.partita.testkit", "io.partita.cache", "io.partita.backend.dnnl", "io.partita.backend.acl", "io.partita.console")),
                "bundle manifests on the class path: " + manifests.keySet());
    }

    private static final DescribedPredicate<JavaClass> IN_EXPORTED_PACKAGE =
            DescribedPredicate.describe("in an exported package", c -> exported.containsKey(c.getPackageName()));

    private static final DescribedPredicate<JavaClass> PRIVATE_PARTITA_CLASS = DescribedPredicate.describe(
            "in a private Partita package", c -> c.getPackageName().startsWith("io.partita.")
                    && !exported.containsKey(c.getPackageName()));

    @Test
    void exportedPackagesUseOnlyExportedPackages() {
        classes().that(IN_EXPORTED_PACKAGE).should().onlyDependOnClassesThat(DescribedPredicate.not(PRIVATE_PARTITA_CLASS))
                .check(partita);
    }

    @Test
    void theApiPullsNoFormatLibrary() {
        noClasses().that().resideInAnyPackage("io.partita.graph..", "io.partita.spi..").should()
                .dependOnClassesThat().resideInAnyPackage("com.fasterxml..", "com.google.protobuf..")
                .check(partita);
    }

    @Test
    void backendsNeverImportEachOther() {
        slices().matching("io.partita.backend.(*)..").should().notDependOnEachOther().check(partita);
    }

    @Test
    void nothingImportsABackendOutsideItsOwnBundle() {
        // The reference backend is part of the runtime bundle, which always offers it last.
        noClasses().that().resideOutsideOfPackages("io.partita.backend..", "io.partita.runtime..").should()
                .dependOnClassesThat().resideInAPackage("io.partita.backend..").check(partita);
        noClasses().that().resideInAPackage("io.partita.runtime..").should().dependOnClassesThat(
                DescribedPredicate.describe("are in a backend other than the reference",
                        c -> c.getPackageName().startsWith("io.partita.backend.")
                                && !c.getPackageName().startsWith("io.partita.backend.reference")))
                .check(partita);
    }

    @Test
    void theWebConsolePageUsesOnlyExportedPartitaPackages() {
        // a management page is a client of the contract (services, MBeans), never of internals
        noClasses().that().resideInAPackage("io.partita.console..").should().dependOnClassesThat(
                DescribedPredicate.describe("are in another bundle's private package",
                        c -> PRIVATE_PARTITA_CLASS.test(c) && !c.getPackageName().startsWith("io.partita.console")))
                .check(partita);
    }

    @Test
    void nothingImportsTheDistribution() {
        noClasses().that().resideOutsideOfPackages("io.partita.cli..", "io.partita.launcher..").should()
                .dependOnClassesThat().resideInAnyPackage("io.partita.cli..", "io.partita.launcher..").check(partita);
    }

    @Test
    void bundleCodeNeverAsksForAPlainClassPathRuntime() {
        // In OSGi, ServiceLoader from the API bundle cannot see the runtime bundle: code that runs
        // in the container must use the GraphRuntime service it was given (or its reference()).
        noClasses().that().resideOutsideOfPackage("io.partita.graph").should()
                .callMethod(io.partita.graph.GraphRuntime.class, "standalone").orShould()
                .callMethod(io.partita.graph.GraphRuntime.class, "referenceOnly").check(partita);
    }

    @Test
    void noPackageCycles() {
        slices().matching("io.partita.(**)").should().beFreeOfCycles().check(partita);
    }

    @Test
    void apiBundleImportsOnlyItsOwnExportsAndTheCacheApi() {
        Set<String> imports = imports("io.partita.api");
        for (String pkg : imports) {
            assertFalse(pkg.startsWith("com.fasterxml") || pkg.startsWith("com.google.protobuf"),
                    "io.partita.api imports " + pkg + ": " + imports);
            if (pkg.startsWith("io.partita.")) {
                String by = exported.get(pkg);
                assertTrue("io.partita.api".equals(by) || "io.partita.cache".equals(pkg),
                        "io.partita.api imports " + pkg + " (exported by " + by + "): " + imports);
            }
        }
    }

    @Test
    void cliBundleImportsNoBackend() {
        Set<String> imports = imports("io.partita.cli");
        assertTrue(imports.contains("io.partita.graph"), "the CLI's imports were read: " + imports);
        for (String pkg : imports) {
            assertFalse(pkg.startsWith("io.partita.backend"), "the CLI bundle imports " + pkg + ": " + imports);
        }
    }

    private static Set<String> imports(String bundle) {
        Manifest m = manifests.get(bundle);
        assertTrue(m != null, "no manifest of " + bundle + " among " + manifests.keySet());
        String header = m.getMainAttributes().getValue("Import-Package");
        return header == null ? Set.of() : new TreeSet<>(new Parameters(header).keySet());
    }
}
