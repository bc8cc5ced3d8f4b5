// TestRunner runs the java driver's unit tests: every static method whose
// name starts with "test" in the classes named on the command line, each on
// its own, a failure reported with its stack trace. Its last line is
// "N passed, N failed" and its exit code 1 when any failed. A plain main
// instead of JUnit: the tests then need nothing resolved beyond the
// driver's own jars (javacheck_test.go compiles and runs them).

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.Comparator;

public final class TestRunner {
    public static void main(String[] args) throws Exception {
        int passed = 0, failed = 0;
        for (String name : args) {
            Method[] methods = Class.forName(name).getDeclaredMethods();
            Arrays.sort(methods, Comparator.comparing(Method::getName));
            for (Method m : methods) {
                if (!m.getName().startsWith("test") || !Modifier.isStatic(m.getModifiers()) || m.getParameterCount() != 0) {
                    continue;
                }
                try {
                    m.setAccessible(true);
                    m.invoke(null);
                    passed++;
                } catch (InvocationTargetException e) {
                    failed++;
                    System.out.println("FAIL " + name + "." + m.getName() + ": " + e.getCause());
                    for (StackTraceElement el : e.getCause().getStackTrace()) {
                        if (el.getClassName().startsWith("jdk.internal.reflect.") || el.getClassName().startsWith("java.lang.reflect.")) {
                            break; // the runner's own frames from here
                        }
                        System.out.println("\tat " + el);
                    }
                }
            }
        }
        System.out.println(passed + " passed, " + failed + " failed");
        System.exit(failed > 0 || passed == 0 ? 1 : 0);
    }
}
