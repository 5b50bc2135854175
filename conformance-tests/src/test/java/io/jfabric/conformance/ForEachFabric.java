package io.jfabric.conformance;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs a test once per {@link FabricCase}. Zero cases is allowed (a reactor with no provider yet);
 * {@link DiscoveryTest} is what fails when a provider that should be there is missing.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ParameterizedTest(name = "{0}", allowZeroInvocations = true)
@MethodSource("io.jfabric.conformance.FabricCases#all")
public @interface ForEachFabric {
}
