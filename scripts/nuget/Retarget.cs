// Retarget IN.dll FACADE.dll OUT.dll
//
// Makes a library that Mono's mcs compiled against the .NET Framework
// profile (mscorlib, System, System.Core) a .NET Standard library: every
// type it takes from those assemblies is looked up among the types the
// netstandard facade (FACADE.dll, e.g. Mono's 4.5/Facades/netstandard.dll,
// version 2.1.0.0) forwards, and its reference is moved to netstandard at
// the facade's version. A type netstandard lacks fails the run, naming it.
// No .NET SDK or NuGet reference pack is needed (none can be had here);
// what this cannot check is members: a method Mono's corlib has and the
// standard lacks would pass, so the package says which runtimes were tested.
using System;
using System.Collections.Generic;
using System.Linq;
using Mono.Cecil;

static class Retarget
{
    static readonly HashSet<string> Framework = new HashSet<string> { "mscorlib", "System", "System.Core" };

    static int Main(string[] args)
    {
        if (args.Length != 3)
        {
            Console.Error.WriteLine("usage: Retarget IN.dll FACADE.dll OUT.dll");
            return 2;
        }
        var facade = ModuleDefinition.ReadModule(args[1]);
        var forwarded = new HashSet<string>(facade.ExportedTypes.Select(t => t.FullName));
        var std = facade.Assembly.Name;
        var stdRef = new AssemblyNameReference(std.Name, std.Version) { PublicKeyToken = std.PublicKeyToken };

        var module = ModuleDefinition.ReadModule(args[0]);
        var missing = new List<string>();
        int moved = 0;
        foreach (var tr in module.GetTypeReferences())
        {
            var top = tr;
            while (top.DeclaringType != null) top = top.DeclaringType;
            var scope = top.Scope as AssemblyNameReference;
            if (scope == null || !Framework.Contains(scope.Name)) continue;
            if (!forwarded.Contains(tr.FullName))
            {
                missing.Add(tr.FullName + " (from " + scope.Name + ")");
                continue;
            }
            tr.Scope = stdRef;
            moved++;
        }
        if (missing.Count > 0)
        {
            Console.Error.WriteLine("Retarget: not in " + std.Name + " " + std.Version + ": " + string.Join(", ", missing));
            return 1;
        }
        var refs = module.AssemblyReferences;
        var others = refs.Where(r => !Framework.Contains(r.Name)).ToList();
        refs.Clear();
        refs.Add(stdRef);
        foreach (var r in others) refs.Add(r);
        module.Write(args[2]);
        Console.WriteLine("Retarget: " + moved + " type references moved to " + std.Name + " " + std.Version +
                          (others.Count > 0 ? "; other references kept: " + string.Join(", ", others.Select(r => r.Name)) : ""));
        return 0;
    }
}
