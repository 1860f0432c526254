"""A generated household's paperwork, for benchmarks: chunks with indexer-shaped metadata,
and questions over the same vocabulary.

Deterministic: the same size and seed give the same corpus byte for byte (document n is
drawn from its own random stream, seeded by text so PYTHONHASHSEED does not matter). Dates spread over the
five years before the evaluation clock (calendar events up to four months past it).
One chunk per document; the text of each is about `chunk_chars` long (photos and
calendar events are shorter, as they are in life). Monthly bills from the same vendor
share a template and differ in amounts and dates: the near-duplicates a real mailbox holds.
"""
from __future__ import annotations

import dataclasses
import hashlib
import random
import re
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

ZONE = ZoneInfo("America/Chicago")
NOW = datetime(2026, 11, 18, 12, 0, tzinfo=ZONE)
SPAN_DAYS = 5 * 365
FUTURE_DAYS = 120

PARENTS = ["Chidi", "Maja"]
KIDS = ["Ada", "Theo"]
PETS = ["Biscuit", "Pepper"]
FAMILY = "Okafor-Lindqvist"
FIRST = ["Elena", "Dana", "Priya", "Luis", "Greta", "Karen", "Marcus", "Hannah", "Omar", "Julia",
         "Ravi", "Sofia", "Tom", "Aisha", "Ben", "Chloe", "Diego", "Erin", "Farah", "George",
         "Ingrid", "Jonas", "Kofi", "Lena", "Mateo", "Nora", "Oliver", "Paula", "Quinn", "Rosa",
         "Sam", "Tara", "Uma", "Victor", "Wendy", "Yusuf", "Zoe", "Amir", "Bea", "Carlos",
         "Deb", "Emil", "Fatima", "Gus", "Hiro", "Ivy", "Jack", "Kim", "Liam", "Mei", "Nils",
         "Olga", "Pete", "Rania", "Stefan", "Tess", "Walt", "Xena", "Yara", "Zack"]
LAST = ["Alvarez", "Natarajan", "Ortega", "Voss", "Hoffman", "Berg", "Nguyen", "Schmidt",
        "Kowalski", "Brennan", "Mensah", "Larsen", "Patel", "Garcia", "Murphy", "Tanaka",
        "Olsen", "Dubois", "Rossi", "Fischer", "Haddad", "Ivanova", "Jensen", "Kaur", "Lopez",
        "Moreau", "Novak", "Okoro", "Park", "Quist", "Reyes", "Svensson", "Thompson", "Usman",
        "Vega", "Weber", "Yilmaz", "Zimmer", "Abbott", "Baker", "Cole", "Dunn", "Ellis"]
TOWNS = ["Alder Falls", "Cedar Creek", "Maple Grove", "Lakeview", "Birchwood", "Prairie Hill",
         "Stony Brook", "Fox Hollow", "Millbrook", "Riverside", "Oak Ridge", "Pine Bluff"]
STREETS = ["Birchwood Lane", "Main Street", "Elm Avenue", "Lakeshore Drive", "Mill Road",
           "Harbor Way", "Cherry Court", "Summit Avenue", "Depot Street", "Orchard Lane"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]
SPORTS = ["soccer", "swim", "basketball", "gymnastics", "hockey", "tennis", "baseball",
          "karate", "dance", "chess club", "Cub Scouts", "piano", "violin", "robotics"]
PLACES = ["the Sports Dome, Field B", "St. Luke's fellowship hall", "the community pool",
          "Lincoln Park pavilion", "the middle school gym", "the public library meeting room",
          "Riverside Ice Arena", "the YMCA on Depot Street", "Oak Ridge tennis courts"]
SUBJECTS = ["math", "reading", "science", "art", "music", "gym", "social studies", "spelling"]
APPLIANCES = {
    "furnace": ["HL96V-080C3", "CG80-60A", "TR95-100B"],
    "water heater": ["AS50T-40NV", "RH40-36G", "BX50-FLX"],
    "dishwasher": ["KDW24-SS", "BD300-W", "QT45-DB"],
    "refrigerator": ["FR25-SXS", "CL21-TM", "NR36-FD"],
    "washing machine": ["WM45-FL", "TL38-HE", "DW52-ST"],
    "dryer": ["DE70-EL", "GD60-NG", "HP75-VX"],
    "air conditioner": ["AC24-16S", "CX36-14", "HZ30-SEER"],
    "garage door opener": ["GD500-B", "LM850-W", "CH1200"],
    "sump pump": ["SP33-PC", "ZM53-HD", "WY25-A"],
    "lawn mower": ["LM21-SP", "RM42-T", "EG19-BT"],
}
FILTER_SIZES = ["16x25x4", "20x25x1", "16x25x1", "20x20x1", "14x20x1", "16x20x4", "20x25x4"]
VACCINES = ["rabies", "distemper", "Bordetella", "leptospirosis", "Lyme", "canine influenza"]
ITEMS = ["furnace filters", "light bulbs", "paint rollers", "garden hose", "extension cord",
         "batteries", "dog food", "printer ink", "winter boots", "rain jacket", "lunch boxes",
         "school supplies", "birthday cake", "soccer cleats", "shin guards", "swim goggles",
         "smoke detector", "caulk", "ice melt", "grass seed", "mulch", "snow shovel",
         "water softener salt", "air freshener", "vitamins", "allergy medicine", "bandages"]
FOODS = ["pizza", "tacos", "pasta salad", "chili", "lasagna", "fruit salad", "cupcakes",
         "veggie tray", "lemonade", "sandwiches", "soup", "cookies"]
DESTINATIONS = ["Milwaukee", "Minneapolis", "Chicago", "Stockholm", "Door County", "Duluth",
                "Denver", "Orlando", "Madison", "Toronto", "Gothenburg", "San Diego"]
AIRLINES = ["Northwind Air", "Lakes Airways", "Aurora Airlines", "Bluebird Air"]
HOTELS = ["Harbor View Inn", "Pinecrest Lodge", "Lakeside Suites", "Old Town Hotel"]
CARS = ["Subaru Outback", "Honda Odyssey", "Toyota RAV4", "Ford F-150"]
CAR_SERVICES = ["oil change", "tire rotation", "brake pads", "battery replacement",
                "wiper blades", "alignment", "state inspection", "coolant flush"]

# Vendors: name, email domain, service words.
CONTRACTORS = [
    ("Summit Ridge Roofing LLC", "summitridge", "roof", ["shingles", "flashing", "gutters", "decking"]),
    ("Hoffman Plumbing & Drain", "hoffmanplumbing", "plumbing", ["water heater", "drain", "sump pump", "faucet"]),
    ("Badger State Mechanical", "badgermech", "heating", ["furnace", "air conditioner", "ductwork", "thermostat"]),
    ("Bright Spark Electric", "brightspark", "electrical", ["outlet", "breaker panel", "ceiling fan", "wiring"]),
    ("Green Thumb Lawn Care", "greenthumb", "lawn", ["mowing", "aeration", "fertilizer", "leaf cleanup"]),
    ("Hilltop Exteriors", "hilltopext", "siding", ["siding", "windows", "trim", "gutters"]),
    ("True Level Carpentry", "truelevel", "carpentry", ["deck", "stairs", "railing", "cabinets"]),
    ("Clear View Window Cleaning", "clearview", "windows", ["windows", "screens", "skylights", "storm doors"]),
    ("Northside Pest Control", "northsidepest", "pest", ["ants", "mice", "wasps", "termite inspection"]),
    ("Apex Painting Co.", "apexpaint", "painting", ["interior walls", "exterior trim", "deck stain", "ceilings"]),
]
BILLERS = [  # (name, domain, what, typical amount)
    ("Driftless Energy", "driftless-energy", "electric and gas service", 120.0),
    ("Alder Falls Water Utility", "alderfalls-water", "water and sewer service", 65.0),
    ("Lakeside Fiber", "lakesidefiber", "internet service", 79.99),
    ("Northwind Mobile", "northwindmobile", "wireless service for 3 lines", 112.0),
    ("Northstar Insurance", "northstar-ins", "auto insurance premium", 143.5),
    ("City of Alder Falls", "alderfalls-city", "refuse and recycling service", 28.0),
    ("StreamBox", "streambox", "streaming subscription", 15.99),
    ("Peak Fitness", "peakfitness", "family gym membership", 89.0),
    ("Maple Grove After School", "mge-kidsclub", "Kids Club after-school care", 310.0),
    ("Cedar Creek Pet Insurance", "cc-petins", "pet insurance premium", 38.25),
]
BILLER_PREFIX = ["Prairie", "Lakeshore", "Northern", "Valley", "Riverbend", "Summit", "Badger",
                 "Harbor", "Pinewood", "Cardinal", "Granite", "Meadow", "Frontier", "Heartland"]
BILLER_KIND = [("Energy", "electric service", 110.0), ("Gas Co.", "natural gas service", 70.0),
               ("Water", "water service", 55.0), ("Broadband", "internet service", 69.99),
               ("Wireless", "phone service", 95.0), ("Insurance", "insurance premium", 120.0),
               ("Dental Plan", "dental plan premium", 45.0), ("Storage", "storage unit rent", 129.0),
               ("Music", "music subscription", 10.99), ("Security", "home monitoring", 34.99)]
STORES = [("Hometown Hardware", "hometownhw"), ("Fresh Fields Market", "freshfields"),
          ("Walgreen Pharmacy", "wgpharmacy"), ("Paws & Claws Pet Supply", "pawsclaws"),
          ("Target Store #1182", "target1182"), ("Alder Falls Co-op", "afcoop"),
          ("Sudsy Paws Grooming", "sudsypaws"), ("Book Nook", "booknook")]
LISTS = [("The Maple Grove Minute", "mge", "school"), ("Birchwood Commons HOA News", "birchwoodhoa", "hoa"),
         ("Alder Falls Library Notes", "aflibrary", "library"), ("Hometown Hardware Deals", "hometownhw", "store"),
         ("Youth Soccer League Update", "afsoccer", "sports"), ("Cedar Creek Pet Health", "cedarcreekvet", "vet"),
         ("St. Luke's Weekly", "stlukes", "church"), ("Parks & Rec Bulletin", "afparks", "parks")]
ORGS = [("Maple Grove Elementary", "maplegrove", "school"), ("Cedar Creek Animal Hospital", "cedarcreekvet", "vet"),
        ("Lakeview Dental", "lakeviewdental", "dentist"), ("Alder Falls Pediatrics", "afpeds", "doctor"),
        ("Alder Falls Youth Soccer", "afsoccer", "sports"), ("Pack 214 Cub Scouts", "pack214", "sports"),
        ("Riverside Swim Club", "riversideswim", "sports"), ("Northstar Insurance", "northstar-ins", "insurance"),
        ("Birchwood Commons HOA", "birchwoodhoa", "hoa"), ("Quick Lube Auto Care", "quicklube", "car")]

SENTENCES: dict[str, list[str]] = {
    "school": [
        "{kid}'s class is going on a field trip to {place} on {weekday}, {date}.",
        "Please sign and return the permission slip by {weekday}; the cost is {amount}.",
        "Dismissal on {weekday} will be at {time} because of {reason}.",
        "{weekday}, {date} is an early release day; pickup is at {time} and Kids Club opens right after.",
        "Parent-teacher conferences are {weekday} from {time} to {time2} in Room {room}.",
        "Picture day is {weekday}, {date}; order forms went home in backpacks.",
        "{teacher} says {kid} is doing well in {subject} and could use more practice with {subject2}.",
        "The {subject} unit test is next {weekday}; a study guide is on the class page.",
        "Library books are due back {weekday}, and overdue notices go out the week after.",
        "Lunch will be {food} on {weekday}; the menu for {month} is attached.",
        "There is no school on {weekday}, {date} for a staff development day.",
        "The winter concert is {weekday}, {date} at {time} in the gym; students arrive 20 minutes early.",
        "Please send {item} with {kid} by {weekday}; we are short for the {subject} project.",
        "The bus route changes on {date}: stop {room} moves to the corner of {street}.",
    ],
    "vet": [
        "{pet} is due for the {vaccine} vaccine on {date}.",
        "{pet} weighed {weight} lb at today's visit with Dr. {person_last}.",
        "The {vaccine} booster was given today; the next one is due {date}.",
        "Please fast {pet} after 8 pm the night before the dental cleaning on {weekday}.",
        "Heartworm and flea prevention for {pet}: {amount} for a six-month supply.",
        "Grooming for {pet} is booked {weekday} at {time} at Sudsy Paws.",
        "Dr. {person_last} recommends a senior blood panel for {pet} at the next visit.",
        "{pet}'s nails were trimmed and the ear infection looks resolved.",
    ],
    "contractor": [
        "Our crew can start the {service} work on {weekday}, {date}, weather permitting.",
        "The estimate for the {part} is {amount}, including materials and labor.",
        "{person} will be the lead on site; call {phone} with any questions.",
        "We replaced the {part} and tested the system; everything is working normally.",
        "A deposit of {amount} is due before we order materials.",
        "The {appliance} model {model} was installed on {date} and registered for warranty.",
        "Please keep pets inside while we work on the {part}.",
        "We found some rot under the {part} that will need attention next spring.",
        "The warranty covers parts for six years and labor for one year.",
        "Final walk-through is scheduled for {weekday} at {time}.",
    ],
    "utility": [
        "Your statement for {month} {year} is ready to view online.",
        "Amount due: {amount}. Payment is due on {date}.",
        "AutoPay will draft {amount} from the account ending in {digits} on {date}.",
        "Your usage this period was {usage} compared with {usage2} last year.",
        "Planned maintenance on {weekday}, {date} may interrupt service between {time} and {time2}.",
        "Account number {account}. Service address: {address}.",
    ],
    "appliance": [
        "The {appliance} ({model}) takes a {filter} filter; replace it every {interval} months.",
        "To reset the {appliance}, hold the start button for five seconds until the light blinks.",
        "Error code E{digits2} on the {appliance} means the drain is blocked.",
        "The {appliance} was bought on {date} and the extended warranty runs {years} years.",
        "Clean the {appliance} filter monthly; a clogged filter shortens the life of the motor.",
        "Serial number {serial} is on the label inside the {appliance} door.",
    ],
    "insurance": [
        "Your homeowners policy {policy} renews on {date}; the annual premium is {amount}.",
        "The deductible is {amount} for wind and hail claims.",
        "Agent {person} can be reached at {phone} for changes to the policy.",
        "Claim {claim} for the {part} damage was approved for {amount}.",
        "The auto policy covers the {car} and lists {parent} and {parent2} as drivers.",
    ],
    "sports": [
        "{kid}'s {sport} practice is every {weekday} at {time} at {place}.",
        "Practice on {weekday} is moved to {time} because the field is closed.",
        "The {sport} tournament is {weekday}, {date}; players arrive by {time}.",
        "Registration for the spring {sport} season is {amount} per player and closes {date}.",
        "Coach {person} needs two parents to bring {food} for the team on {weekday}.",
        "Uniforms will be handed out at the first practice; bring {item}.",
        "Games are cancelled this {weekday} because of the storm; we will reschedule.",
    ],
    "travel": [
        "Your flight {flight} on {airline} to {destination} departs {date} at {time}.",
        "Check in at the {hotel} is after 3 pm; your confirmation number is {confirmation}.",
        "The rental car is reserved for {date} through {date2} at the {destination} airport.",
        "Passports for {kid} and {kid2} expire on {date}; renew them before the trip.",
        "Grandma {grandma} lands in {destination} on {date}; pick her up at {time}.",
        "We will drive to {destination} on {weekday} and stay two nights at the {hotel}.",
    ],
    "family": [
        "Dinner at {person}'s on {weekday} at {time}; we are bringing {food}.",
        "{kid}'s birthday party is {weekday}, {date} at {place}; RSVP to {phone}.",
        "Can you pick up {item} on the way home from work {weekday}?",
        "The trash goes out {weekday} night; recycling is every other week.",
        "{parent} has a dentist appointment {weekday} at {time}, so {parent2} does pickup.",
        "The Wi-Fi password is {password} since the router was replaced.",
        "Remember the block party on {street} on {weekday}, {date}.",
        "{kid} lost a tooth today and is very excited about it.",
    ],
    "medical": [
        "{kid}'s annual checkup is {weekday}, {date} at {time} with Dr. {person_last}.",
        "The prescription for {kid} is ready for pickup; the copay is {amount}.",
        "Please bring the insurance card and the immunization record to the appointment.",
        "{kid}'s dental cleaning is {weekday} at {time} at Lakeview Dental, phone {phone}.",
        "The flu shot clinic runs {weekday}, {date} from {time} to {time2}.",
    ],
    "car": [
        "The {car} is due for a {car_service} at {mileage} miles.",
        "We completed the {car_service} and {car_service2}; total {amount}.",
        "The registration for the {car} expires on {date}.",
        "Your {car} was inspected on {date} and passed; the next inspection is due in two years.",
    ],
    "filler": [
        "Thanks so much for your help with everything this month.",
        "Let me know if you have any questions.",
        "Hope you all had a great weekend.",
        "Please reply by {weekday} so we can plan.",
        "The schedule may change if the weather turns.",
        "I'll send a reminder the day before.",
        "We really appreciate your patience while we sort this out.",
        "Sorry for the late notice.",
        "See you {weekday}!",
        "Call {phone} if anything comes up.",
        "Attached is the form we talked about.",
        "It was great to see everyone at {place}.",
    ],
}
TOPICS = [t for t in SENTENCES if t != "filler"]
TOPIC_SUBJECTS = {
    "school": ["{kid}'s field trip on {weekday}", "Schedule change: {weekday} early release",
               "Conference time for {kid}", "Picture day reminder", "{subject} unit test next week",
               "Welcome to {grade} grade", "Lunch menu for {month}"],
    "vet": ["{pet}'s {vaccine} reminder", "{pet}'s visit summary", "Grooming appointment for {pet}"],
    "contractor": ["Estimate for {service} work", "Re: {part} repair", "Appointment confirmed for {weekday}",
                   "Your {service} project schedule"],
    "utility": ["Your {biller} bill is ready", "Planned maintenance on {weekday}"],
    "appliance": ["{appliance} filter size", "Re: {appliance} warranty", "{appliance} error code"],
    "insurance": ["Your policy documents are ready", "Claim {claim} update", "Auto policy renewal"],
    "sports": ["{sport} practice moved to {weekday}", "{sport} tournament {weekday}", "Spring {sport} registration"],
    "travel": ["Trip to {destination}", "Your flight {flight} confirmation", "Hotel booking at {hotel}"],
    "family": ["Dinner {weekday}?", "{kid}'s birthday party", "Can you grab {item}?", "Wi-Fi password"],
    "medical": ["{kid}'s checkup", "Prescription ready", "Dental cleaning for {kid}"],
    "car": ["{car} service reminder", "Registration renewal", "Your {car_service} is complete"],
}
QUESTIONS = [
    ("logistical", "is {weekday} a half day?"),
    ("logistical", "what time is pickup on {weekday}"),
    ("logistical", "when is {kid}'s {sport} practice this week"),
    ("logistical", "is there {sport} practice today?"),
    ("logistical", "what's on the calendar {weekday}"),
    ("logistical", "when is {kid}'s parent teacher conference"),
    ("logistical", "what day is trash pickup"),
    ("logistical", "when is {pet}'s grooming appointment"),
    ("logistical", "when is {kid}'s next dentist appointment"),
    ("logistical", "when does {kid2}'s field trip leave"),
    ("logistical", "is school closed next {weekday}?"),
    ("logistical", "what time does the {sport} tournament start on {weekday}"),
    ("entity", "what size filter does the {appliance} take"),
    ("entity", "what model is our {appliance}"),
    ("entity", "how much does {pet} weigh"),
    ("entity", "when is {pet}'s {vaccine} shot due"),
    ("entity", "what's the wi-fi password"),
    ("entity", "how much is our latest {biller} bill"),
    ("entity", "what is the phone number for {org}"),
    ("entity", "who is our insurance agent"),
    ("entity", "what is the deductible on our homeowners policy"),
    ("entity", "when does the {car} registration expire"),
    ("entity", "what is the account number for {biller}"),
    ("entity", "when do the passports expire"),
    ("historical", "what roofer did we use in {year}"),
    ("historical", "who fixed the {part} in {year}"),
    ("historical", "when did we replace the {appliance}"),
    ("historical", "how much did we pay {contractor} in {year}"),
    ("historical", "how much did {pet} weigh in {year}"),
    ("historical", "where did we go on vacation in {year}"),
    ("historical", "what did the {biller} bill cost in {month} {year}"),
    ("historical", "when was the last {car_service} on the {car}"),
    ("historical", "how much did we spend at {store} in {month} {year}"),
    ("historical", "who was {kid}'s teacher in {year}"),
    ("logistical", "what time is {kid}'s {sport} game {weekday}"),
    ("logistical", "do the kids have school on {weekday}"),
    ("logistical", "where is {sport} practice this week"),
    ("logistical", "when is the {sport} registration deadline"),
    ("logistical", "is the {sport} game on {weekday} cancelled"),
    ("logistical", "what should {kid} bring for the field trip on {weekday}"),
    ("logistical", "when does {kid} need the permission slip back"),
    ("entity", "what is our {biller} account number"),
    ("entity", "how often do we replace the {appliance} filter"),
    ("entity", "what is the serial number of the {appliance}"),
    ("entity", "how long is the warranty on the {appliance}"),
    ("entity", "what's the phone number for {contractor}"),
    ("entity", "when is {kid}'s next checkup"),
    ("entity", "what does error code E{digits2} on the {appliance} mean"),
    ("entity", "what is the homeowners policy number"),
    ("historical", "when did {contractor} last come out"),
    ("historical", "what did we pay for the {car_service} in {year}"),
    ("historical", "how much was the {biller} bill last {month}"),
    ("historical", "when did we fly to {destination}"),
    ("historical", "which hotel did we stay at in {destination}"),
    ("historical", "when did {pet} get the {vaccine} vaccine"),
    ("historical", "what did {contractor} charge for the {part} in {year}"),
    ("none", "what is the dentist's fax number"),
    ("none", "when was the chimney last swept"),
]


@dataclasses.dataclass(frozen=True)
class Chunk:
    id: str
    text: str
    meta: dict[str, Any]


class _Slots(dict):
    """Slot values for one document, drawn on first use and then kept: a document that
    names a kid twice names the same kid. `{kid2}` is another draw of the `kid` kind."""

    def __init__(self, rng: random.Random, when: datetime, extra: dict[str, Any] | None = None):
        super().__init__(extra or {})
        self.rng = rng
        self.when = when

    def __missing__(self, key: str) -> str:
        kind = re.sub(r"\d+$", "", key)
        value = _SLOT_MAKERS[kind](self.rng, self.when)
        self[key] = value
        return value


def _day(rng: random.Random, when: datetime, lo: int = -10, hi: int = 30) -> str:
    d = (when + timedelta(days=rng.randint(lo, hi))).date()
    return f"{MONTHS[d.month - 1]} {d.day}, {d.year}" if rng.random() < 0.6 else f"{d.month}/{d.day}/{d.year}"


def _clock(rng: random.Random, when: datetime) -> str:
    hour, minute = rng.randint(7, 19), rng.choice([0, 0, 15, 30, 45])
    return f"{(hour - 1) % 12 + 1}:{minute:02d} {'am' if hour < 12 else 'pm'}"


def _person(rng: random.Random, when: datetime) -> str:
    return f"{rng.choice(FIRST)} {rng.choice(LAST)}"


_SLOT_MAKERS: dict[str, Callable[[random.Random, datetime], str]] = {
    "kid": lambda r, w: r.choice(KIDS),
    "parent": lambda r, w: r.choice(PARENTS),
    "pet": lambda r, w: r.choice(PETS),
    "grandma": lambda r, w: r.choice(["Ingrid", "Ngozi"]),
    "teacher": lambda r, w: f"{r.choice(['Ms.', 'Mr.', 'Mrs.'])} {r.choice(LAST)}",
    "person": _person,
    "person_last": lambda r, w: r.choice(LAST),
    "weekday": lambda r, w: r.choice(WEEKDAYS[:5]) if r.random() < 0.8 else r.choice(WEEKDAYS),
    "date": _day,
    "time": _clock,
    "month": lambda r, w: MONTHS[w.month - 1] if r.random() < 0.7 else r.choice(MONTHS),
    "year": lambda r, w: str(w.year),
    "amount": lambda r, w: f"${r.choice([r.uniform(8, 120), r.uniform(40, 600), r.uniform(300, 16000)]):,.2f}",
    "phone": lambda r, w: f"(608) 555-01{r.randint(0, 99):02d}",
    "place": lambda r, w: r.choice(PLACES),
    "reason": lambda r, w: r.choice(["parent-teacher conferences", "staff training", "the weather",
                                     "a water main repair", "the holiday"]),
    "room": lambda r, w: str(r.randint(100, 230)),
    "subject": lambda r, w: r.choice(SUBJECTS),
    "grade": lambda r, w: r.choice(["1st", "2nd", "3rd", "4th", "5th"]),
    "food": lambda r, w: r.choice(FOODS),
    "item": lambda r, w: r.choice(ITEMS),
    "street": lambda r, w: r.choice(STREETS),
    "vaccine": lambda r, w: r.choice(VACCINES),
    "weight": lambda r, w: f"{r.uniform(28, 38):.1f}",
    "service": lambda r, w: r.choice(CONTRACTORS)[2],
    "part": lambda r, w: r.choice(r.choice(CONTRACTORS)[3]),
    "appliance": lambda r, w: r.choice(list(APPLIANCES)),
    "model": lambda r, w: r.choice(r.choice(list(APPLIANCES.values()))),
    "filter": lambda r, w: r.choice(FILTER_SIZES),
    "interval": lambda r, w: str(r.choice([1, 3, 6, 12])),
    "years": lambda r, w: str(r.choice([2, 3, 5, 10])),
    "serial": lambda r, w: f"{r.randint(2000, 2699)}{r.choice('ABCDEFGH')}{r.randint(100000, 999999)}",
    "digits": lambda r, w: f"{r.randint(0, 9999):04d}",
    "digits2": lambda r, w: f"{r.randint(1, 40)}",
    "usage": lambda r, w: f"{r.randint(200, 1400)} kWh",
    "account": lambda r, w: f"{r.randint(10, 99)}-{r.randint(100000, 999999)}",
    "address": lambda r, w: f"2417 Birchwood Lane, {r.choice(TOWNS)}",
    "policy": lambda r, w: f"HO-{r.randint(1000, 9999)}-{r.randint(1000, 9999)}-{r.randint(10, 99)}",
    "claim": lambda r, w: f"CL-{r.randint(100000, 999999)}",
    "car": lambda r, w: r.choice(CARS),
    "car_service": lambda r, w: r.choice(CAR_SERVICES),
    "mileage": lambda r, w: f"{r.randint(10, 140) * 1000:,}",
    "sport": lambda r, w: r.choice(SPORTS),
    "flight": lambda r, w: f"{r.choice('NLAB')}{r.choice('WAKE')} {r.randint(100, 2999)}",
    "airline": lambda r, w: r.choice(AIRLINES),
    "hotel": lambda r, w: r.choice(HOTELS),
    "destination": lambda r, w: r.choice(DESTINATIONS),
    "confirmation": lambda r, w: "".join(r.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(6)),
    "password": lambda r, w: f"{r.choice(['otter', 'maple', 'cedar', 'heron'])}-{r.choice(TOWNS).split()[0]}-{r.randint(10, 9999)}",
    "biller": lambda r, w: r.choice(BILLERS)[0],
    "org": lambda r, w: r.choice(ORGS)[0],
    "contractor": lambda r, w: r.choice(CONTRACTORS)[0],
    "store": lambda r, w: r.choice(STORES)[0],
}


def _fill(template: str, slots: _Slots) -> str:
    text = template.format_map(slots)
    return text[0].upper() + text[1:]


def _body(rng: random.Random, slots: _Slots, topic: str, target: int, head: str = "") -> str:
    """Sentences of `topic` (and some small talk) in paragraphs until about `target` chars."""
    out = [head] if head else []
    size = len(head)
    paragraph: list[str] = []
    pool = SENTENCES[topic]
    while size < target:
        kind = "filler" if rng.random() < 0.25 else (topic if rng.random() < 0.8 else rng.choice(TOPICS))
        template = rng.choice(pool if kind == topic else SENTENCES[kind])
        # Later draws of a slot kind get fresh values: a message names more than one date.
        fresh = _Slots(rng, slots.when, {k: v for k, v in slots.items() if rng.random() < 0.7})
        sentence = _fill(template, fresh)
        paragraph.append(sentence)
        size += len(sentence) + 1
        if len(paragraph) >= rng.randint(2, 5):
            out.append(" ".join(paragraph))
            paragraph = []
    if paragraph:
        out.append(" ".join(paragraph))
    text = "\n\n".join(out)
    if len(text) > target:
        cut = text.rfind(" ", 0, target)
        text = text[:cut if cut > 0 else target]
    return text


def _iso(value: datetime) -> str:
    return value.astimezone(UTC).isoformat()


def _draw_date(rng: random.Random, future: bool = False) -> datetime:
    lo = NOW - timedelta(days=SPAN_DAYS)
    span = SPAN_DAYS + (FUTURE_DAYS if future else 0)
    when = lo + timedelta(seconds=rng.randrange(span * 86400))
    return when.replace(microsecond=0)


def _biller(n: int) -> tuple[str, str, str, float]:
    """Biller n: the ten named ones, then generated regional ones."""
    if n < len(BILLERS):
        return BILLERS[n]
    m = n - len(BILLERS)
    prefix = BILLER_PREFIX[m % len(BILLER_PREFIX)]
    kind, what, amount = BILLER_KIND[(m // len(BILLER_PREFIX)) % len(BILLER_KIND)]
    suffix = m // (len(BILLER_PREFIX) * len(BILLER_KIND))
    name = f"{prefix} {kind}" + (f" {suffix + 1}" if suffix else "")
    domain = re.sub(r"[^a-z0-9]+", "", name.lower())
    return name, domain, what, amount


class Household:
    """The paperwork of one household over five years, `n` chunks of it."""

    # Share of each kind of document (the rest of the weight is plain email).
    MIX = (("bill", 0.10), ("invoice", 0.05), ("receipt", 0.09), ("newsletter", 0.14),
           ("calendar_event", 0.08), ("note", 0.05), ("manual", 0.02), ("static_pdf", 0.03),
           ("photo", 0.03), ("email", 0.41))
    BILLS_PER_BILLER = 60          # one a month for five years

    def __init__(self, n: int, seed: int = 7, chunk_chars: int = 1200):
        self.n = n
        self.seed = seed
        self.chunk_chars = chunk_chars
        # Enough billers that each sends about one bill a month: the near-duplicate groups
        # stay the size a real household's are, however large the corpus.
        self.n_billers = max(len(BILLERS), round(n * dict(self.MIX)["bill"] / self.BILLS_PER_BILLER))

    def chunks(self) -> Iterator[Chunk]:
        for i in range(self.n):
            yield self.chunk(i)

    def chunk(self, i: int) -> Chunk:
        rng = random.Random(f"{self.seed}:{i}")
        draw, kind = rng.random(), "email"
        for name, share in self.MIX:
            if draw < share:
                kind = name
                break
            draw -= share
        title, text, meta = getattr(self, f"_{kind}")(rng, i)
        doc_id = hashlib.sha256(f"{self.seed}:{i}".encode()).hexdigest()[:32]
        meta = {
            "doc_id": doc_id, "chunk_no": 0, "n_chunks": 1, "title": title,
            "content_hash": hashlib.sha256(f"{title}\x1f{text}".encode()).hexdigest(),
            "message_id": "", "parent_id": "", "attachment": "", "date_floating": False,
            "ingestion_date": _iso(NOW), **meta,
        }
        meta.setdefault("file_path", meta["source"])
        return Chunk(id=f"{doc_id}:0", text=text, meta=meta)

    def _target(self, rng: random.Random) -> int:
        return rng.randint(int(self.chunk_chars * 0.8), self.chunk_chars)

    @staticmethod
    def _dated(meta: dict[str, Any], when: datetime, source: str) -> dict[str, Any]:
        return {**meta, "source_date": _iso(when), "source_epoch": int(when.timestamp()),
                "date_source": source}

    # ---- one kind of document each ----------------------------------------------------
    def _email(self, rng: random.Random, i: int):
        when = _draw_date(rng)
        topic = rng.choice(TOPICS)
        slots = _Slots(rng, when)
        org = next((o for o in ORGS if o[2] == topic), None)
        if org and rng.random() < 0.6:
            sender = f"{org[0]} <{rng.choice(['office', 'info', 'front', 'noreply'])}@{org[1]}.example>"
        elif topic == "contractor":
            c = rng.choice(CONTRACTORS)
            sender = f"{slots['person']} <{slots['person'].split()[0].lower()}@{c[1]}.example>"
            slots["service"] = c[2]
        else:
            name = slots["person"] if rng.random() < 0.7 else rng.choice(PARENTS) + " " + FAMILY.split("-")[0]
            sender = f"{name} <{name.split()[0].lower()}.{name.split()[-1].lower()}@example.org>"
        subject = _fill(rng.choice(TOPIC_SUBJECTS[topic]), slots)
        if rng.random() < 0.3:
            subject = f"Re: {subject}"
        greeting = f"Hi {rng.choice(PARENTS + ['all', 'everyone', 'both of you'])},"
        text = _body(rng, slots, topic, self._target(rng), greeting)
        text = text[:self.chunk_chars - 20] + f"\n\n{sender.split('<')[0].strip().split()[0]}"
        domain = sender[sender.index("@") + 1:-1]
        meta = {"source": f"mail/{when:%Y-%m-%d}-{i:06d}.eml", "doc_type": "email", "from": sender,
                "message_id": f"<{i:06d}.{int(when.timestamp())}@{domain}>"}
        return subject, text, self._dated(meta, when, "date_header")

    def _newsletter(self, rng: random.Random, i: int):
        when = _draw_date(rng)
        name, domain, kind = rng.choice(LISTS)
        topic = {"hoa": "family", "library": "school", "store": "appliance", "church": "family",
                 "parks": "sports"}.get(kind, kind)
        topic = topic if topic in SENTENCES else "family"
        slots = _Slots(rng, when)
        head = (f"{name} | {MONTHS[when.month - 1]} {when.day}, {when.year}\n"
                f"View this email in your browser. In this issue: upcoming events, reminders and news.")
        text = _body(rng, slots, topic, self._target(rng) - 160, head)
        text += (f"\n\nYou are receiving this because you subscribed to {name}. "
                 f"Unsubscribe or manage your subscription preferences.")
        meta = {"source": f"mail/{domain}-{when:%Y-%m-%d}-{i:06d}.eml", "doc_type": "newsletter",
                "from": f"{name} <news@{domain}.example>", "list_id": f"<news.{domain}.example>",
                "message_id": f"<{i:06d}.news@{domain}.example>"}
        return f"{name} — {MONTHS[when.month - 1]} {when.day}", text, self._dated(meta, when, "date_header")

    def _bill(self, rng: random.Random, i: int):
        name, domain, what, typical = _biller(rng.randrange(self.n_billers))
        month_start = _draw_date(rng).replace(day=rng.randint(5, 9), hour=6, minute=0, second=0)
        amount = typical * rng.uniform(0.6, 1.5)
        due = month_start + timedelta(days=21)
        key = int(hashlib.sha256(name.encode()).hexdigest()[:12], 16)
        account = f"{key % 90 + 10}-{key // 90 % 900000 + 100000}"
        # The template is the vendor's, the same every month: only numbers and dates move.
        text = (f"Your {name} bill is ready\n"
                f"Statement date: {MONTHS[month_start.month - 1]} {month_start.day}, {month_start.year}\n"
                f"Account number: {account}\nService address: 2417 Birchwood Lane, Alder Falls, WI 53590\n"
                f"Billing period: {MONTHS[(month_start.month - 2) % 12]} {month_start.day} to "
                f"{MONTHS[month_start.month - 1]} {month_start.day - 1}\n"
                f"Charges for {what}: ${amount * 0.92:,.2f}\nTaxes and fees: ${amount * 0.08:,.2f}\n"
                f"Amount due: ${amount:,.2f}\nDue date: {MONTHS[due.month - 1]} {due.day}, {due.year}\n\n"
                f"Thank you for being a {name} customer. Your payment will be drafted by AutoPay on the due "
                f"date from the account on file; no action is needed. To view your full statement, usage "
                f"history and past bills, sign in to My Account at {domain}.example. Questions about your "
                f"bill? Call customer service at (800) 555-01{key % 97:02d}, Monday through "
                f"Friday 7 am to 7 pm. Ways to save: enroll in paperless billing and budget billing to spread "
                f"your payments evenly across the year. Report outages or emergencies 24 hours a day. "
                f"This message was sent to the email address on your account. Please do not reply to "
                f"this email; this mailbox is not monitored. Privacy policy and terms of service apply.")
        meta = {"source": f"mail/{month_start:%Y-%m-%d}-{domain}-bill-{i:06d}.eml", "doc_type": "invoice",
                "from": f"{name} <billing@{domain}.example>", "invoice_vendor": name,
                "invoice_total": round(amount, 2), "invoice_currency": "USD",
                "message_id": f"<bill-{i:06d}@{domain}.example>"}
        return f"Your {name} bill is ready", text[:self.chunk_chars], self._dated(meta, month_start, "date_header")

    def _invoice(self, rng: random.Random, i: int):
        when = _draw_date(rng)
        vendor, domain, service, parts = rng.choice(CONTRACTORS)
        slots = _Slots(rng, when, {"service": service, "part": rng.choice(parts)})
        number = f"{when:%y}-{rng.randint(100, 9999):04d}"
        lines = [f"{vendor}\n{rng.randint(100, 9999)} {rng.choice(STREETS)}, {rng.choice(TOWNS)}, WI",
                 f"INVOICE {number}", f"Invoice Date: {MONTHS[when.month - 1]} {when.day}, {when.year}",
                 f"Date of Service: {_day(rng, when, -14, -1)}", "Bill To: Chidi Okafor, 2417 Birchwood Lane"]
        total = 0.0
        for _ in range(rng.randint(2, 6)):
            price = rng.uniform(20, 3000)
            total += price
            lines.append(f"{rng.choice(parts).capitalize()} - {rng.choice(['labor', 'materials', 'replacement', 'inspection'])}"
                         f"  {rng.randint(1, 6)}  ${price:,.2f}")
        lines += [f"Subtotal ${total:,.2f}", f"Sales tax ${total * 0.055:,.2f}", f"Total due ${total * 1.055:,.2f}",
                  f"Payment terms: net 15. Questions: {slots['phone']}."]
        head = "\n".join(lines)
        text = _body(rng, slots, "contractor", self._target(rng), head)
        meta = {"source": f"documents/invoices/{domain}-invoice-{number}.pdf", "doc_type": "invoice",
                "invoice_vendor": vendor, "invoice_number": number, "invoice_total": round(total * 1.055, 2),
                "invoice_currency": "USD", "pdf_author": vendor}
        return f"{vendor} Invoice {number}", text, self._dated(meta, when, "invoice_date")

    def _receipt(self, rng: random.Random, i: int):
        when = _draw_date(rng)
        if rng.random() < 0.3:
            store, domain, topic = "Cedar Creek Animal Hospital", "cedarcreekvet", "vet"
        else:
            (store, domain), topic = rng.choice(STORES), "family"
        slots = _Slots(rng, when)
        lines = [store, f"Receipt #{rng.randint(10000, 99999)}",
                 f"Date: {when:%m/%d/%Y} {when:%H:%M}", f"Cashier: {rng.choice(FIRST)}"]
        total = 0.0
        for _ in range(rng.randint(3, 12)):
            price = rng.uniform(1.5, 90)
            total += price
            item = rng.choice(ITEMS) if topic == "family" else f"{rng.choice(VACCINES)} vaccine"
            lines.append(f"{item.upper()}  ${price:,.2f}")
        lines += [f"TOTAL ${total:,.2f}", f"VISA ****{slots['digits']}  APPROVED",
                  "Thank you for shopping with us!"]
        text = "\n".join(lines)
        if topic == "vet":
            text += "\n" + _body(rng, slots, "vet", self._target(rng) - len(text))
        meta = {"source": f"documents/receipts/{domain}-receipt-{when:%Y-%m-%d}-{i:06d}.pdf",
                "doc_type": "receipt", "invoice_vendor": store, "invoice_total": round(total, 2),
                "invoice_currency": "USD"}
        return f"{store} receipt", text[:self.chunk_chars], self._dated(meta, when, "invoice_date")

    def _calendar_event(self, rng: random.Random, i: int):
        start = _draw_date(rng, future=True).astimezone(ZONE).replace(minute=rng.choice([0, 15, 30, 45]), second=0)
        slots = _Slots(rng, start)
        all_day = rng.random() < 0.2
        kind = rng.choice(["sports", "school", "medical", "vet", "family", "travel"])
        summary = _fill(rng.choice({
            "sports": ["{kid}'s {sport} practice", "{sport} game vs {town}", "{sport} tournament"],
            "school": ["Parent-teacher conference ({kid})", "Early release day", "Picture day", "Winter concert"],
            "medical": ["{kid} checkup with Dr. {person_last}", "Dentist: {kid}", "Flu shots"],
            "vet": ["{pet} at the vet", "{pet} grooming at Sudsy Paws"],
            "family": ["Dinner at {person}'s", "Block party", "{kid}'s birthday party", "Replace furnace filter ({filter})"],
            "travel": ["Flight to {destination}", "Trip to {destination}", "Pick up Grandma {grandma}"],
        }[kind]), _Slots(rng, start, {**slots, "town": rng.choice(TOWNS)}))
        meta: dict[str, Any] = {"source": f"calendars/family.ics#{i}", "doc_type": "calendar_event",
                                "tzid": "America/Chicago", "all_day": all_day, "status": "CONFIRMED",
                                "location": rng.choice(PLACES), "organizer": "", "rrule": "", "exdates": ""}
        if rng.random() < 0.03:
            meta["status"] = "CANCELLED"
        if all_day:
            start = start.replace(hour=0, minute=0)
            end = start + timedelta(days=rng.choice([1, 1, 1, 3]))
            meta["event_end"] = end.date().isoformat()
        else:
            end = start + timedelta(minutes=rng.choice([30, 60, 75, 90, 120]))
            meta["event_end"] = _iso(end)
        # Seasons of weekly practices, half-yearly reminders, yearly birthdays.
        roll = rng.random()
        if kind == "sports" and roll < 0.5:
            until = start + timedelta(weeks=rng.randint(8, 16))
            meta["rrule"] = f"FREQ=WEEKLY;BYDAY={WEEKDAYS[start.weekday()][:2].upper()};UNTIL={until:%Y%m%dT%H%M%S}"
        elif kind == "family" and roll < 0.15:
            meta["rrule"] = rng.choice(["FREQ=MONTHLY;INTERVAL=6", "FREQ=YEARLY"])
        lines = [summary, f"Starts {start:%A, %B %-d, %Y}" + ("" if all_day else f" at {start:%-I:%M %p}"),
                 f"Location: {meta['location']}"]
        if meta["rrule"]:
            lines.append(f"Repeats {meta['rrule'].split(';')[0].split('=')[1].lower()}")
        lines.append(_body(rng, slots, kind, rng.randint(150, 600)))
        meta = self._dated(meta, start, "dtstart")
        return summary, "\n".join(lines), meta

    def _note(self, rng: random.Random, i: int):
        when = _draw_date(rng)
        topic = rng.choice(["family", "appliance", "car", "travel", "insurance"])
        slots = _Slots(rng, when)
        title = _fill(rng.choice(["House routines", "{appliance} notes", "Packing list for {destination}",
                                  "Babysitter info", "Wi-Fi and router", "{car} maintenance log",
                                  "Gift ideas", "Insurance contacts"]), slots)
        undated = rng.random() < 0.15
        head = title if undated else f"{title}\nDate: {when:%Y-%m-%d}"
        text = _body(rng, slots, topic, self._target(rng), head)
        meta = {"source": f"notes/{re.sub(r'[^a-z0-9]+', '-', title.lower())}-{i:06d}.md", "doc_type": "note"}
        if undated:  # only the file's mtime: an undated document
            return title, text, self._dated(meta, NOW - timedelta(days=3), "file_mtime")
        return title, text, self._dated(meta, when, "text_date")

    def _manual(self, rng: random.Random, i: int):
        when = _draw_date(rng)
        appliance = rng.choice(list(APPLIANCES))
        model = rng.choice(APPLIANCES[appliance])
        slots = _Slots(rng, when, {"appliance": appliance, "model": model})
        head = (f"{appliance.title()} {model} Owner's Manual\nSafety information, installation, "
                f"maintenance and troubleshooting. Page {rng.randint(1, 80)}")
        text = _body(rng, slots, "appliance", self._target(rng), head)
        meta = {"source": f"documents/manuals/{model}-owners-manual.pdf", "doc_type": "manual"}
        return f"{appliance.title()} {model} Owner's Manual", text, self._dated(meta, when, "pdf_creation_date")

    def _static_pdf(self, rng: random.Random, i: int):
        when = _draw_date(rng)
        topic = rng.choice(["school", "insurance", "family", "utility"])
        slots = _Slots(rng, when)
        title = _fill(rng.choice({
            "school": ["Maple Grove Elementary {year} school year calendar", "Supply list for {grade} grade"],
            "insurance": ["Homeowners policy declarations {policy}", "Auto insurance ID cards"],
            "family": ["HOA rules and regulations", "City notice: collection day change"],
            "utility": ["Rate change notice", "Water quality report {year}"],
        }[topic]), slots)
        text = _body(rng, slots, topic, self._target(rng), title)
        meta = {"source": f"documents/{topic}/{re.sub(r'[^a-z0-9]+', '-', title.lower())}-{i:06d}.pdf",
                "doc_type": "static_pdf"}
        return title, text, self._dated(meta, when, "pdf_creation_date")

    def _photo(self, rng: random.Random, i: int):
        when = _draw_date(rng)
        slots = _Slots(rng, when)
        caption = _fill(rng.choice(["{kid} at {place}", "{pet} in the backyard", "The new {appliance} label",
                                    "Finished roof", "{kid} and {kid2} in {destination}", "Receipt from {store}"]),
                        slots)
        text = (f"{caption}\nphotos {when.year} {MONTHS[when.month - 1]}\nCamera: Pixel 7 "
                f"Taken {when:%A, %B %-d, %Y at %-I:%M %p}")
        meta = {"source": f"photos/IMG_{when:%Y%m%d_%H%M%S}_{i:06d}.jpg", "doc_type": "photo"}
        return caption, text, self._dated(meta, when, "exif_datetime_original")


def questions(n: int, seed: int = 11) -> list[tuple[str, str]]:
    """`n` distinct (pattern, question) pairs from the templates above, each template once
    first; the same every run."""
    rng = random.Random(seed)
    out: dict[str, str] = {}
    for j in range(n * 20):
        if len(out) == n:
            break
        pattern, template = QUESTIONS[j] if j < len(QUESTIONS) else rng.choice(QUESTIONS)
        when = NOW - timedelta(days=rng.randrange(SPAN_DAYS))
        out.setdefault(template.format_map(_Slots(rng, when)), pattern)
    return [(pattern, question) for question, pattern in out.items()][:n]
