package io.jfabric.provider.shm;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Identifies a process by its pid and its start time (field 22 of {@code /proc/<pid>/stat},
 * in clock ticks since boot), so a recycled pid is never mistaken for the process that created a
 * region. libfabric's shm only checks the pid ({@code kill(pid, 0)}); the start time is jfabric's
 * addition.
 */
public final class ProcessIdentity {

    /** Start time reported for a process that does not exist. */
    public static final long GONE = -1;

    private static final long SELF_PID = ProcessHandle.current().pid();
    private static final long SELF_START = startTime(SELF_PID);

    private ProcessIdentity() {
    }

    public static long selfPid() {
        return SELF_PID;
    }

    public static long selfStartTime() {
        return SELF_START;
    }

    /**
     * The start time of {@code pid} in clock ticks since boot, or {@link #GONE} when no such process
     * exists (or it is a zombie, which can never touch its memory again).
     */
    public static long startTime(long pid) {
        if (pid <= 0) {
            return GONE;
        }
        byte[] stat;
        try {
            stat = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "stat"));
        } catch (NoSuchFileException e) {
            return GONE;
        } catch (IOException e) {
            return GONE;
        }
        return parseStartTime(new String(stat, StandardCharsets.US_ASCII));
    }

    /**
     * Parses field 22 of a stat line. The command name (field 2) sits in parentheses and may itself
     * contain spaces and parentheses, so fields are counted from the last ')'.
     */
    static long parseStartTime(String stat) {
        int close = stat.lastIndexOf(')');
        if (close < 0) {
            return GONE;
        }
        String[] rest = stat.substring(close + 1).trim().split(" +");
        // rest[0] is field 3 (state), so field 22 is rest[19]
        if (rest.length < 20) {
            return GONE;
        }
        if (rest[0].equals("Z") || rest[0].equals("X")) {
            return GONE;
        }
        try {
            return Long.parseLong(rest[19]);
        } catch (NumberFormatException e) {
            return GONE;
        }
    }

    /** Whether the process {@code pid} that started at {@code startTime} is still running. */
    public static boolean isAlive(long pid, long startTime) {
        long now = startTime(pid);
        return now != GONE && now == startTime;
    }
}
