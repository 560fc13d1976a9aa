/**
 * The house rules a machine can check, as a `deno lint` plugin (`lint.plugins` in `deno.json`):
 *
 * - `portable-core`: `src/core/` is bundled for edge runtimes, so no file in it may use the `Deno`
 *   namespace or import `node:` modules or anything from `src/deno/` (dependencies point
 *   deno → core, never back).
 * - `two-positional-arguments`: an exported function takes at most two positional arguments plus
 *   an options object, so that a call reads without counting commas and a new setting never
 *   shifts a position.
 *
 * @module
 */

/** Whether a file is part of the portable core. */
function inCore(filename: string): boolean {
  return /[\\/]src[\\/]core[\\/]/.test(filename);
}

/** The name a parameter is known by, or `undefined` for a pattern. */
function parameterName(param: Deno.lint.Parameter): string | undefined {
  if (param.type === "Identifier") return param.name;
  if (param.type === "AssignmentPattern" && param.left.type === "Identifier") {
    return param.left.name;
  }
  return undefined;
}

/** The type annotation of a parameter, when it has one. */
function parameterType(param: Deno.lint.Parameter): Deno.lint.TypeNode | undefined {
  const target = param.type === "AssignmentPattern" ? param.left : param;
  if ("typeAnnotation" in target && target.typeAnnotation?.type === "TSTypeAnnotation") {
    return target.typeAnnotation.typeAnnotation;
  }
  return undefined;
}

/**
 * Whether a third parameter is an options object: destructured, named like options, or typed as
 * an object literal or as an interface whose name says it holds settings.
 */
function isOptionsObject(param: Deno.lint.Parameter): boolean {
  const target = param.type === "AssignmentPattern" ? param.left : param;
  if (target.type === "ObjectPattern") return true;
  const name = parameterName(param);
  if (name !== undefined && /(options|settings|init|opts)$/i.test(name)) return true;
  const type = parameterType(param);
  if (type?.type === "TSTypeLiteral") return true;
  if (type?.type === "TSTypeReference" && type.typeName.type === "Identifier") {
    return /(Options|Settings|Init|Config)$/.test(type.typeName.name);
  }
  return false;
}

/** The problem with a function's parameters under the two-argument rule, if any. */
function parameterProblem(params: readonly Deno.lint.Parameter[]): string | undefined {
  const positional = params.filter((param) => param.type !== "RestElement");
  if (positional.length <= 2) return undefined;
  if (positional.length === 3 && isOptionsObject(positional[2])) return undefined;
  return `takes ${positional.length} positional arguments: keep at most two and move the rest into an options object`;
}

const plugin: Deno.lint.Plugin = {
  name: "toolroute",
  rules: {
    "portable-core": {
      create(context) {
        if (!inCore(context.filename)) return {};
        const checkSource = (node: Deno.lint.Node, source: string) => {
          if (source.startsWith("node:")) {
            context.report({
              node,
              message:
                `src/core must stay web-standard: '${source}' is a Node module; inject the capability as an option instead`,
            });
          } else if (
            /(^|\/)deno\//.test(source) && source.includes("/src/deno/") ||
            /^(\.\.\/)+deno\//.test(source)
          ) {
            context.report({
              node,
              message:
                `src/core must not import from src/deno ('${source}'): dependencies point deno → core`,
            });
          }
        };
        return {
          ImportDeclaration(node) {
            checkSource(node, node.source.value);
          },
          ExportNamedDeclaration(node) {
            if (node.source) checkSource(node, node.source.value);
          },
          ExportAllDeclaration(node) {
            checkSource(node, node.source.value);
          },
          MemberExpression(node) {
            if (node.object.type === "Identifier" && node.object.name === "Deno") {
              context.report({
                node,
                message:
                  "src/core must stay web-standard: it may not use the Deno namespace; inject the capability as an option instead",
              });
            }
          },
          TSQualifiedName(node) {
            if (node.left.type === "Identifier" && node.left.name === "Deno") {
              context.report({
                node,
                message: "src/core must stay web-standard: it may not name Deno's types",
              });
            }
          },
        };
      },
    },
    "two-positional-arguments": {
      create(context) {
        if (!/[\\/]src[\\/]/.test(context.filename)) return {};
        const check = (
          node: Deno.lint.Node,
          name: string,
          params: readonly Deno.lint.Parameter[],
        ) => {
          const problem = parameterProblem(params);
          if (problem !== undefined) {
            context.report({ node, message: `exported function '${name}' ${problem}` });
          }
        };
        return {
          "ExportNamedDeclaration > FunctionDeclaration"(node: Deno.lint.FunctionDeclaration) {
            check(node, node.id?.name ?? "default", node.params);
          },
          "ExportNamedDeclaration > VariableDeclaration > VariableDeclarator"(
            node: Deno.lint.VariableDeclarator,
          ) {
            const init = node.init;
            if (init?.type !== "ArrowFunctionExpression" && init?.type !== "FunctionExpression") {
              return;
            }
            check(node, node.id.type === "Identifier" ? node.id.name : "(pattern)", init.params);
          },
        };
      },
    },
  },
};

export default plugin;
