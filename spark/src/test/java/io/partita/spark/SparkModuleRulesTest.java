package io.partita.spark;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import org.junit.jupiter.api.Test;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;

/**
 * The module meets Partita through its public API only: the Graph API, the cache API, the model
 * readers and the seeded inputs of the testkit. The runtime and the backends are found on the class
 * path at run time, never referred to.
 */
class SparkModuleRulesTest {
    private static final JavaClasses MODULE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("io.partita.spark");

    @Test
    void usesNoRuntimeOrBackendClasses() {
        noClasses().that().resideInAPackage("io.partita.spark..")
                .should().dependOnClassesThat().resideInAnyPackage("io.partita.runtime..", "io.partita.backend..",
                        "io.partita.gpu..", "io.partita.spi..", "io.partita.cli..", "io.partita.formats.onnx.internal..",
                        "io.partita.cache.internal..")
                .check(MODULE);
    }
}
