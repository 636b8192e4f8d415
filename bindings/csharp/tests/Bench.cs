namespace DryDB.Tests { public static class Bench { public static void Run(string[] a) { } } }
