// AssemblyInfo.cs
using System.Reflection;
using System.Runtime.CompilerServices;

[assembly: AssemblyTitle("DryDB")]
[assembly: AssemblyDescription("C# binding of drydb, a read-only embedded key/value database")]
[assembly: AssemblyVersion("0.1.0.0")]
// The test runner's benchmark calls the raw P/Invoke declarations as the floor.
[assembly: InternalsVisibleTo("DryDB.Tests")]
