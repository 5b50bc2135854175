package io.jfabric.spi;

/**
 * Whether a provider's module may call native code, asked before its first native call so that a JVM that
 * denies it ({@code --illegal-native-access=deny} without the module in {@code --enable-native-access}) gets
 * a provider that reports itself unavailable, with the flag to add, instead of an {@link IllegalCallerException}
 * from deep inside it. libfabric has no counterpart: native code is all it is.
 */
public final class NativeAccess {
    private NativeAccess() {
    }

    /**
     * Why {@code module} may not call native code, or null when it may. {@link Module#isNativeAccessEnabled()}
     * answers for a module named in {@code --enable-native-access}; otherwise the JVM's
     * {@code --illegal-native-access} mode decides, which no API reports, so {@code restrictedCall} is made: it
     * throws {@link IllegalCallerException} when access is denied and, under the default mode, prints the JVM's
     * one warning for the module, as the provider's first downcall would.
     *
     * @param module the provider's module ({@code MyProvider.class.getModule()})
     * @param restrictedCall a call of a restricted method that does no native work, written in the provider's
     *     own class, since restricted methods check their caller's module: {@code () ->
     *     MemorySegment.NULL.reinterpret(0)}
     * @return null when native access is allowed; else "native access is not enabled for module M; add
     *     --enable-native-access=M" ({@code ALL-UNNAMED} on the class path)
     */
    public static String deniedReason(Module module, Runnable restrictedCall) {
        if (module.isNativeAccessEnabled()) {
            return null;
        }
        try {
            restrictedCall.run();
            return null;
        } catch (IllegalCallerException e) {
            String flag = module.isNamed() ? module.getName() : "ALL-UNNAMED";
            String who = module.isNamed() ? "module " + module.getName() : "the class path (unnamed module)";
            return "native access is not enabled for " + who + "; add --enable-native-access=" + flag;
        }
    }
}
