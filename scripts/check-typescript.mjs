// The TypeScript half of `npm run check`: one TypeScript program per tsconfig, type-checked, then linted by ESLint
// with that program's types. tsc and ESLint run apart each parse and type the whole code base (about 20 s of CPU
// each); here ESLint's type-aware rules read the types the type check has already worked out. Nothing is emitted:
// `npm run build` writes dist/, and the tests run the test build (scripts/build-tests.mjs).
import { ESLint } from 'eslint';
import ts from 'typescript';

/** The program of a tsconfig; an unreadable tsconfig stops the script. */
function programOf(configPath) {
  const config = ts.getParsedCommandLineOfConfigFile(
    configPath,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  return ts.createProgram({ rootNames: config.fileNames, options: config.options, projectReferences: config.projectReferences });
}

const programs = [programOf('tsconfig.json'), programOf('web/tsconfig.json')];
let failed = false;

const diagnostics = programs.flatMap((program) => ts.getPreEmitDiagnostics(program));
if (diagnostics.length > 0) {
  failed = true;
  const formatHost = { getCanonicalFileName: (name) => name, getCurrentDirectory: ts.sys.getCurrentDirectory, getNewLine: () => '\n' };
  console.log(`type check: ${diagnostics.length} error(s)\n${ts.formatDiagnostics(diagnostics, formatHost)}`);
}

const eslint = new ESLint({
  overrideConfig: { files: ['**/*.ts'], languageOptions: { parserOptions: { projectService: false, programs } } },
});
const lintResults = await eslint.lintFiles(['.']);
if (lintResults.some((result) => result.errorCount + result.warningCount > 0)) {
  failed = true;
  console.log(`lint:\n${await (await eslint.loadFormatter('stylish')).format(lintResults)}`);
}
process.exit(failed ? 1 : 0);
