// SPDX-License-Identifier: MIT
// ValidateSamFiles -- run Picard's ValidateSamFile (MODE=SUMMARY) on
// several files in one JVM: a JVM start costs about 2 s, one validation of
// a small file a fraction of that.  Run with Java 11+ source launch:
//
//   java -cp /usr/share/java/picard.jar ValidateSamFiles.java A.sam B.bam ...
//
// Prints "== FILE <path>", Picard's summary (its error/warning histogram,
// or "No errors found"), "== EXIT <status>" for each file.  Exit status:
// the largest of Picard's (0: no errors or warnings).
public class ValidateSamFiles {
    public static void main(String[] args) {
        int worst = 0;
        for (String f : args) {
            System.out.println("== FILE " + f);
            int r = new picard.sam.ValidateSamFile().instanceMain(
                new String[] { "-I", f, "-MODE", "SUMMARY", "-VERBOSITY", "ERROR" });
            System.out.println("== EXIT " + r);
            System.out.flush();
            if (r > worst) worst = r;
        }
        System.exit(worst);
    }
}
