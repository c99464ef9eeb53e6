// The TypeScript half of `npm run check`, on one TypeScript program per tsconfig: type check, lint with ESLint's
// type-aware rules, and build dist/ (without checking again). tsc and ESLint run separately would each parse and
// type the whole code base (about 20 s of CPU each); here ESLint reads the types of the program already checked.
import { ESLint } from 'eslint';
import ts from 'typescript';
import { buildWeb } from './build-web.mjs';
import { copyAssets } from './copy-assets.mjs';

/** A tsconfig's files and options, `overrides` applied; an unreadable tsconfig stops the script. */
function readConfig(path, overrides = {}) {
  return ts.getParsedCommandLineOfConfigFile(path, overrides, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  });
}

/** A compiler host that parses each file once, for programs that share files and parsing options. */
function sharedParsingHost(options) {
  const host = ts.createCompilerHost(options);
  const parsed = new Map();
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, ...rest) => {
    if (!parsed.has(fileName)) parsed.set(fileName, getSourceFile(fileName, languageVersion, ...rest));
    return parsed.get(fileName);
  };
  return host;
}

function programOf(config, host = ts.createCompilerHost(config.options)) {
  return ts.createProgram({ rootNames: config.fileNames, options: config.options, projectReferences: config.projectReferences, host });
}

const code = readConfig('tsconfig.json');
const codeHost = sharedParsingHost(code.options);
const codeProgram = programOf(code, codeHost);
const webProgram = programOf(readConfig('web/tsconfig.json'));
const programs = [codeProgram, webProgram];
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

// dist/ as `npm run build` makes it, emitted without a second type check (done above) from the files parsed above.
const build = programOf(readConfig('tsconfig.build.json', { noCheck: true }), codeHost);
const emitted = build.emit();
copyAssets('src', 'dist');
const webBuilt = buildWeb((staging) => {
  const { outDir } = webProgram.getCompilerOptions();
  const result = webProgram.emit(undefined, (fileName, text) => ts.sys.writeFile(`${staging}${fileName.slice(outDir.length)}`, text));
  return !result.emitSkipped;
});
if (emitted.emitSkipped || !webBuilt) {
  failed = true;
  console.log('build: dist/ could not be written');
}
process.exit(failed ? 1 : 0);
