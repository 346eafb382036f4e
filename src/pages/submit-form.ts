// The submission form as HTML (pages/submit.ts serves it): plain fields that work without
// JavaScript, a label for each, the errors of a refused submission next to their fields
// (aria-describedby, aria-invalid) and in a summary at the top that takes the focus when the page
// opens (autofocus: no script needed), the hidden field that programs fill and people do not see,
// and the ALTCHA widget, the one part that needs JavaScript (said in a <noscript>).
import { page, text } from './html.js';
import { all, type FormField, type FormValues, one, type Refused } from './submit-input.js';
import { SUBMIT_TEXTS, type SubmitTexts } from './submit-texts.js';
import type { PageLanguage } from './texts.js';

/** What the lists of the form offer: existing categories, venues and organizers, and time zones. */
export interface FormChoices {
  categories: { id: number; name: string }[];
  venues: { id: number; name: string; city?: string | null }[];
  organizers: { id: number; name: string }[];
  timezones: string[];
  siteZone: string;
  /** Whether an image may go with a submission (SUBMISSION_IMAGE_MAX_MB is not 0). */
  takesImage: boolean;
}

/** Where the page's own parts are, relative to the page (so that it works under any path and host). */
export interface FormLinks {
  /** The ALTCHA widget's script. */
  script: string;
  /** GET <REST base>/submissions/challenge. */
  challenge: string;
}

/** The form's own look, beside the pages' (html.ts): fields one under the other, errors marked without colour alone. */
const FORM_STYLE = `<style>
form label{display:block;font-weight:600;margin:.75rem 0 .25rem}fieldset{border:1px solid #c4c7c5;margin:1rem 0;padding:.5rem 1rem 1rem}
legend{font-weight:700;padding:0 .25rem}input[type=file]{font:inherit}input[type=text],input[type=email],input[type=url],input[type=date],input[type=time],select,textarea{font:inherit;width:100%;box-sizing:border-box;padding:.4rem;border:1px solid #747775;border-radius:4px}
.choice label,label.choice{display:inline;font-weight:400;margin:0 0 0 .25rem}.choice{margin:.25rem 0}.hint{color:#444;font-size:.9rem;margin:.1rem 0}
.error{color:#b3261e;font-weight:600;margin:.25rem 0}.error::before{content:"⚠ "}[aria-invalid=true]{border:2px solid #b3261e}
.problems{border:3px solid #b3261e;padding:.5rem 1rem;margin:1rem 0}.problems:focus{outline:3px solid #0b57d0}
.nickname{position:absolute;left:-10000px;top:auto;width:1px;height:1px;overflow:hidden}
button{font:inherit;padding:.5rem 1.25rem;margin-top:1rem}
</style>`;

const id = (field: string) => `f-${field}`;
const errorId = (field: string) => `e-${field}`;

interface Context {
  t: SubmitTexts;
  form: FormValues;
  invalid: Set<FormField>;
}

/** A field's error, and the attributes that tie its control to it and to its hint. */
function described(c: Context, field: FormField): { error: string; attributes: string } {
  const ids = [c.t.hints[field] ? `h-${field}` : '', c.invalid.has(field) ? errorId(field) : ''].filter(Boolean);
  const error = c.invalid.has(field) ? `<p class="error" id="${errorId(field)}">${text(c.t.errors[field])}</p>` : '';
  const attributes = `${ids.length ? ` aria-describedby="${ids.join(' ')}"` : ''}${c.invalid.has(field) ? ' aria-invalid="true"' : ''}`;
  return { error, attributes };
}

const hint = (c: Context, field: FormField) =>
  c.t.hints[field] ? `<p class="hint" id="h-${field}">${text(c.t.hints[field])}</p>` : '';

const star = (c: Context) => ` <abbr title="${text(c.t.required)}">*</abbr>`;

interface InputOptions {
  type?: string;
  required?: boolean;
  maxlength?: number;
  autocomplete?: string;
  /** The field that answers for this control's errors (a time answers with its date). */
  errorOf?: FormField;
}

function input(c: Context, name: string, label: string, options: InputOptions = {}): string {
  const field = options.errorOf ?? (name as FormField);
  // A time shares its date's error and hint, shown once, at the date.
  const own = field === name;
  const { error, attributes } = described(c, field);
  const extra = [
    options.required ? ' required' : '',
    options.maxlength ? ` maxlength="${options.maxlength}"` : '',
    options.autocomplete ? ` autocomplete="${options.autocomplete}"` : '',
  ].join('');
  return `<label for="${id(name)}">${text(label)}${options.required ? star(c) : ''}</label>
${own ? `${hint(c, field)}${error}` : ''}<input type="${options.type ?? 'text'}" id="${id(name)}" name="${name}" value="${text(one(c.form, name))}"${extra}${attributes}>`;
}

function checkbox(c: Context, name: FormField, label: string): string {
  const { error, attributes } = described(c, name);
  const on = one(c.form, name) ? ' checked' : '';
  return `${error}<p class="choice"><input type="checkbox" id="${id(name)}" name="${name}" value="1"${on}${attributes}><label for="${id(name)}">${text(label)}</label></p>`;
}

function select(c: Context, name: FormField, label: string, options: [string, string][]): string {
  const { error, attributes } = described(c, name);
  const chosen = one(c.form, name);
  const items = options
    .map(
      ([value, shown]) =>
        `<option value="${text(value)}"${value === chosen ? ' selected' : ''}>${text(shown)}</option>`,
    )
    .join('');
  return `<label for="${id(name)}">${text(label)}</label>
${hint(c, name)}${error}<select id="${id(name)}" name="${name}"${attributes}>${items}</select>`;
}

function whenFields(c: Context, choices: FormChoices): string {
  const { labels } = c.t;
  const zone = one(c.form, 'timezone') || choices.siteZone;
  const zones = choices.timezones.includes(zone) ? choices.timezones : [zone, ...choices.timezones];
  return `<fieldset><legend>${text(c.t.when)}</legend>
${input(c, 'start_date', labels.start_date, { type: 'date', required: true })}
${input(c, 'start_time', labels.start_time, { type: 'time', errorOf: 'start_date' })}
${input(c, 'end_date', labels.end_date, { type: 'date' })}
${input(c, 'end_time', labels.end_time, { type: 'time', errorOf: 'end_date' })}
${checkbox(c, 'all_day', labels.all_day)}
${select(
  { ...c, form: { ...c.form, timezone: zone } },
  'timezone',
  labels.timezone,
  zones.map((name) => [name, name.replaceAll('_', ' ')]),
)}
</fieldset>`;
}

function categoryFields(c: Context, choices: FormChoices): string {
  const { labels } = c.t;
  const picked = new Set(all(c.form, 'categories'));
  const { error, attributes } = described(c, 'categories');
  const boxes = choices.categories
    .map(
      (category) =>
        `<p class="choice"><input type="checkbox" id="${id(`categories-${category.id}`)}" name="categories" value="${category.id}"${picked.has(String(category.id)) ? ' checked' : ''}><label for="${id(`categories-${category.id}`)}">${text(category.name)}</label></p>`,
    )
    .join('\n');
  // The group is what an error names: the fieldset carries the description and the first box the focus.
  const group = choices.categories.length
    ? `<fieldset id="${id('categories')}" tabindex="-1"${attributes}><legend>${text(labels.categories)}</legend>${error}\n${boxes}\n</fieldset>`
    : '';
  return `${group}
${input(c, 'suggested_categories', labels.suggested_categories, { maxlength: 520 })}`;
}

function placeFields(c: Context, choices: FormChoices): string {
  const { labels } = c.t;
  const venues: [string, string][] = [
    ['', c.t.noVenue],
    ...choices.venues.map((venue): [string, string] => [
      String(venue.id),
      venue.city ? `${venue.name} (${venue.city})` : venue.name,
    ]),
  ];
  const organizers: [string, string][] = [
    ['', c.t.noOrganizer],
    ...choices.organizers.map((organizer): [string, string] => [String(organizer.id), organizer.name]),
  ];
  return `<fieldset><legend>${text(c.t.where)}</legend>
${select(c, 'venue', labels.venue, venues)}
<p><strong>${text(c.t.newVenue)}</strong></p>
${input(c, 'venue_name', labels.venue_name, { maxlength: 200 })}
${input(c, 'venue_address', labels.venue_address, { maxlength: 500, autocomplete: 'off' })}
${input(c, 'venue_city', labels.venue_city, { maxlength: 500, autocomplete: 'off' })}
${input(c, 'venue_country', labels.venue_country, { maxlength: 500, autocomplete: 'off' })}
${checkbox(c, 'is_virtual', labels.is_virtual)}
${input(c, 'virtual_url', labels.virtual_url, { type: 'url', maxlength: 2000 })}
</fieldset>
<fieldset><legend>${text(c.t.who)}</legend>
${select(c, 'organizer', labels.organizer, organizers)}
<p><strong>${text(c.t.newOrganizer)}</strong></p>
${input(c, 'organizer_name', labels.organizer_name, { maxlength: 200 })}
${input(c, 'organizer_website', labels.organizer_website, { type: 'url', maxlength: 2000 })}
${input(c, 'organizer_email', labels.organizer_email, { type: 'email', maxlength: 254 })}
</fieldset>`;
}

/** The summary of what to correct, first in the page, focused as it opens; each line leads to its field. */
function problems(c: Context, refused: Refused | undefined): string {
  if (!refused) return '';
  const lines = refused.refusal
    ? [`<li>${text(c.t.refusals[refused.refusal])}</li>`]
    : refused.fields.map(
        (field) =>
          `<li><a href="#${id(field === 'form' ? 'title' : field)}">${text(c.t.labels[field])}</a>: ${text(c.t.errors[field])}</li>`,
      );
  return `<div class="problems" id="problems" role="alert" tabindex="-1" autofocus aria-labelledby="problems-title">
<h2 id="problems-title">${text(c.t.problems)}</h2>
<ul>${lines.join('\n')}</ul>
</div>`;
}

/**
 * The image and what it shows. A browser never fills a file field again, so a form sent back with
 * errors asks for the image again (the hint says so).
 */
function imageFields(c: Context): string {
  const { error, attributes } = described(c, 'image');
  return `<label for="${id('image')}">${text(c.t.labels.image)}</label>
${hint(c, 'image')}${error}<input type="file" id="${id('image')}" name="image" accept="${IMAGE_TYPES}"${attributes}>
${input(c, 'image_alt_text', c.t.labels.image_alt_text, { maxlength: 1000 })}`;
}

/** What the file field offers: the types the media library takes (media/images.ts). */
const IMAGE_TYPES = 'image/jpeg,image/png,image/webp,image/gif,image/avif';

/** The form page, empty or with what was sent and why it was refused. */
export function formPage(
  lang: PageLanguage,
  choices: FormChoices,
  links: FormLinks,
  sent: { form: FormValues; refused?: Refused } = { form: {} },
): string {
  const t = SUBMIT_TEXTS[lang];
  const c: Context = { t, form: sent.form, invalid: new Set(sent.refused?.fields ?? []) };
  const { labels } = t;
  const altcha = described(c, 'altcha');
  const description = described(c, 'description');
  const body = `<h1>${text(t.title)}</h1>
${problems(c, sent.refused)}
<p>${text(t.intro)}</p>
<noscript><p class="problems">${text(t.noScript)}</p></noscript>
<form method="post" action="./" accept-charset="utf-8" enctype="multipart/form-data">
<fieldset><legend>${text(t.event)}</legend>
${input(c, 'title', labels.title, { required: true, maxlength: 200 })}
<label for="${id('description')}">${text(labels.description)}</label>
${description.error}<textarea id="${id('description')}" name="description" rows="6"${description.attributes}>${text(one(c.form, 'description'))}</textarea>
${input(c, 'cost', labels.cost, { maxlength: 500 })}
${input(c, 'website', labels.website, { type: 'url', maxlength: 2000 })}
${choices.takesImage ? imageFields(c) : ''}
${categoryFields(c, choices)}
</fieldset>
${whenFields(c, choices)}
${placeFields(c, choices)}
<fieldset><legend>${text(t.you)}</legend>
<p class="hint">${text(t.privateNote)}</p>
${input(c, 'submitter_name', labels.submitter_name, { required: true, maxlength: 250, autocomplete: 'name' })}
${input(c, 'submitter_email', labels.submitter_email, { type: 'email', required: true, maxlength: 254, autocomplete: 'email' })}
<div class="nickname" aria-hidden="true"><label for="${id('nickname')}">Nickname</label><input type="text" id="${id('nickname')}" name="nickname" tabindex="-1" autocomplete="off" value=""></div>
</fieldset>
${altcha.error}<div id="${id('altcha')}" tabindex="-1"${altcha.attributes}><altcha-widget name="altcha" challenge="${text(links.challenge)}" auto="onfocus" language="${lang}"></altcha-widget></div>
<button type="submit" id="f-send">${text(t.send)}</button>
</form>`;
  return page(lang, t.title, body, `${FORM_STYLE}\n<script type="module" src="${text(links.script)}"></script>`);
}
