// AssemblyInfo.cs
using System.Reflection;
using System.Runtime.CompilerServices;

[assembly: AssemblyTitle("DryDB")]
[assembly: AssemblyDescription("C# binding of drydb, a read-only embedded key/value database")]
// The version's copies are kept in step with VERSION by scripts/version.
[assembly: AssemblyVersion("0.1.0.0")]
[assembly: AssemblyFileVersion("0.1.0.0")]
[assembly: AssemblyInformationalVersion("0.1.0")]
// The test runner's benchmark calls the raw P/Invoke declarations as the floor.
[assembly: InternalsVisibleTo("DryDB.Tests")]
